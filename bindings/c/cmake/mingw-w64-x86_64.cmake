# CMake toolchain file: build libidelink, frame_editor and the ctest suite for 64-bit Windows
# from Linux with mingw-w64 (Debian: g++-mingw-w64-x86-64-posix), and run the Windows programs
# under Wine (docs/c.md, "Windows"):
#
#     cmake -S bindings/c -B build-win \
#       -DCMAKE_TOOLCHAIN_FILE=bindings/c/cmake/mingw-w64-x86_64.cmake
#
# The library is cargo's x86_64-pc-windows-gnu build (IDELINK_RUST_TARGET); a consumer that
# finds the installed package uses the same file without that variable mattering.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
# The posix thread model: C++17's std::thread and std::mutex (the win32 model of GCC 12 has
# neither).
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
# The programs carry mingw's C++ runtime and winpthread themselves: beside them goes only
# idelink.dll (the shared variant), which itself imports only Windows' own DLLs.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
set(IDELINK_RUST_TARGET x86_64-pc-windows-gnu CACHE STRING "cargo --target for libidelink")
# ctest runs each Windows program through Wine (Debian's wine64).
if(EXISTS /usr/lib/wine/wine64)
  set(CMAKE_CROSSCOMPILING_EMULATOR /usr/lib/wine/wine64)
endif()
