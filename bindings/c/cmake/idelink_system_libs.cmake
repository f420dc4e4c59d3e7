# The system libraries a program linking the *static* libidelink needs (what rustc prints with
# --print native-static-libs for std, mio and getrandom). The shared library carries its own.
#   Linux:   pthread, dl, m, rt, util (and libgcc_s, which the C/C++ driver links anyway)
#   macOS:   System, c, m (libSystem holds pthread and the entropy call)      [not tested here]
#   Windows: kernel32, ntdll, userenv, ws2_32, dbghelp (mingw-w64; rustc 1.95 for
#            x86_64-pc-windows-gnu: advapi32, bcrypt and bcryptprimitives come as raw-dylib
#            imports inside the library). Tested: the ctest suite of the mingw-w64 cross build
#            links replay_vectors_static and the package consumer statically with exactly
#            this list and runs them under Wine.
# Sets IDELINK_SYSTEM_LIBS (for target_link_libraries).
set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)
if(WIN32)
  set(IDELINK_SYSTEM_LIBS kernel32 ntdll userenv ws2_32 dbghelp)
elseif(APPLE)
  set(IDELINK_SYSTEM_LIBS Threads::Threads System c m)
else()
  set(IDELINK_SYSTEM_LIBS Threads::Threads ${CMAKE_DL_LIBS} m rt util)
endif()
