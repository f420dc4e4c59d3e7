# ctest's msvc_consumer (tests/CMakeLists.txt, Windows builds): consumer_msvc.c compiled with
# clang-cl (clang --driver-mode=cl, target x86_64-pc-windows-msvc) and linked by lld-link
# against idelink.lib, then run under the emulator with idelink.dll beside it.
#   cmake -DCLANG=... -DLLD_LINK=... -DDLLTOOL=... -DEMULATOR=... -DINCLUDE_DIR=...
#         -DIMPLIB=idelink.lib -DDLL=idelink.dll -DOUT=dir -P consumer_msvc.cmake
cmake_minimum_required(VERSION 3.19)
set(here ${CMAKE_CURRENT_LIST_DIR})
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
function(step)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${OUT} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "msvc_consumer: failed (${rc}): ${ARGN}")
  endif()
endfunction()
step(${DLLTOOL} -m i386:x86-64 -d ${here}/kernel32.def -l kernel32.lib)
# /Zl: no default CRT library; /GS-: no security cookie (the CRT's); freestanding: clang's own
# stdint.h and stddef.h, not the SDK's; /Tc: a path starting with / is a file, not an option.
step(${CLANG} --driver-mode=cl --target=x86_64-pc-windows-msvc /nologo /c /O1 /W4 /WX /GS- /Zl
  /clang:-ffreestanding /I${INCLUDE_DIR} /Foconsumer_msvc.obj /Tc${here}/consumer_msvc.c)
step(${LLD_LINK} /nologo /machine:x64 /subsystem:console /entry:consumer_main /nodefaultlib
  /out:consumer_msvc.exe consumer_msvc.obj ${IMPLIB} kernel32.lib)
file(COPY ${DLL} DESTINATION ${OUT})
execute_process(COMMAND ${EMULATOR} consumer_msvc.exe WORKING_DIRECTORY ${OUT}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message("${out}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "consumer_msvc: refused=1 misuse=1 snapshots=1")
  message(FATAL_ERROR "msvc_consumer: consumer_msvc.exe exited ${rc}")
endif()
