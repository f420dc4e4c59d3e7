# The system libraries a program linking the *static* libidelink needs (what rustc prints with
# --print native-static-libs for std, mio and getrandom). The shared library carries its own.
#   Linux:   pthread, dl, m, rt, util (and libgcc_s, which the C/C++ driver links anyway)
#   macOS:   System, c, m (libSystem holds pthread and the entropy call)      [not tested here]
#   Windows: ws2_32, userenv, ntdll, bcrypt, advapi32, kernel32 (mingw-w64)  [not tested here]
# Sets IDELINK_SYSTEM_LIBS (for target_link_libraries).
set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)
if(WIN32)
  set(IDELINK_SYSTEM_LIBS ws2_32 userenv ntdll bcrypt advapi32 kernel32)
elseif(APPLE)
  set(IDELINK_SYSTEM_LIBS Threads::Threads System c m)
else()
  set(IDELINK_SYSTEM_LIBS Threads::Threads ${CMAKE_DL_LIBS} m rt util)
endif()
