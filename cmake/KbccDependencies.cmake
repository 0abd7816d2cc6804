# Finds every third-party dependency once and names what is missing.
set(_kbcc_missing "")

find_package(LLVM CONFIG PATHS ${KBCC_LLVM_ROOT}/lib/cmake/llvm NO_DEFAULT_PATH)
find_package(Clang CONFIG PATHS ${KBCC_LLVM_ROOT}/lib/cmake/clang NO_DEFAULT_PATH)
if(NOT LLVM_FOUND OR NOT Clang_FOUND)
  list(APPEND _kbcc_missing "llvm-19-dev libclang-19-dev libclang-cpp19-dev")
endif()

find_path(LMDB_INCLUDE_DIR lmdb.h)
find_library(LMDB_LIBRARY lmdb)
if(NOT LMDB_INCLUDE_DIR OR NOT LMDB_LIBRARY)
  list(APPEND _kbcc_missing "liblmdb-dev")
endif()

find_path(XXHASH_INCLUDE_DIR xxhash.h)
if(NOT XXHASH_INCLUDE_DIR)
  list(APPEND _kbcc_missing "libxxhash-dev")
endif()

find_package(nlohmann_json 3 CONFIG QUIET)
if(NOT nlohmann_json_FOUND)
  list(APPEND _kbcc_missing "nlohmann-json3-dev")
endif()

find_package(CURL QUIET)
if(NOT CURL_FOUND)
  list(APPEND _kbcc_missing "libcurl4-openssl-dev")
endif()

find_path(SODIUM_INCLUDE_DIR sodium.h)
find_library(SODIUM_LIBRARY sodium)
if(NOT SODIUM_INCLUDE_DIR OR NOT SODIUM_LIBRARY)
  list(APPEND _kbcc_missing "libsodium-dev")
endif()

find_path(HIREDIS_INCLUDE_DIR hiredis/hiredis.h)
find_library(HIREDIS_LIBRARY hiredis)
if(NOT HIREDIS_INCLUDE_DIR OR NOT HIREDIS_LIBRARY)
  list(APPEND _kbcc_missing "libhiredis-dev")
endif()

if(KBCC_BUILD_TESTS)
  find_package(GTest QUIET)
  if(NOT GTest_FOUND)
    list(APPEND _kbcc_missing "libgtest-dev libgmock-dev")
  endif()
endif()

find_path(CUPTI_INCLUDE_DIR cupti.h PATHS ${KBCC_CUDA_ROOT}/include NO_DEFAULT_PATH)
find_library(CUPTI_LIBRARY cupti PATHS ${KBCC_CUDA_ROOT}/lib64 ${KBCC_CUDA_ROOT}/extras/CUPTI/lib64 NO_DEFAULT_PATH)
find_library(CUDA_DRIVER_LIBRARY cuda PATHS ${KBCC_CUDA_ROOT}/lib64/stubs NO_DEFAULT_PATH)
if(NOT CUPTI_INCLUDE_DIR OR NOT CUPTI_LIBRARY OR NOT CUDA_DRIVER_LIBRARY)
  list(APPEND _kbcc_missing "CUDA 13 toolkit with CUPTI at ${KBCC_CUDA_ROOT}")
endif()

if(_kbcc_missing)
  list(JOIN _kbcc_missing ", " _kbcc_missing_text)
  message(FATAL_ERROR "kbcc: missing dependencies: ${_kbcc_missing_text}. "
                      "Run scripts/install-deps.sh (Debian 12) to install them.")
endif()

add_library(kbcc_llvm INTERFACE)
target_include_directories(kbcc_llvm SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS} ${CLANG_INCLUDE_DIRS})
target_compile_definitions(kbcc_llvm INTERFACE ${LLVM_DEFINITIONS})
if(KBCC_STATIC_LLVM)
  # Self-contained binary for machines without LLVM 19 (e.g. a GPU machine):
  # Clang's and LLVM's static archives by path, so nothing pulls libLLVM.so.
  set(_clang_libs "")
  foreach(_c Tooling Frontend Driver Serialization Parse Sema Analysis Edit AST Lex Basic Rewrite
          ASTMatchers Support APINotes)
    list(APPEND _clang_libs ${KBCC_LLVM_ROOT}/lib/libclang${_c}.a)
  endforeach()
  execute_process(COMMAND ${KBCC_LLVM_ROOT}/bin/llvm-config --libs --link-static core option support
                          frontendopenmp frontendhlsl frontenddriver mc mcparser profiledata bitreader
                          windowsdriver targetparser demangle binaryformat remarks bitstreamreader object
                          textapi irreader asmparser
                  OUTPUT_VARIABLE _llvm_static_libs OUTPUT_STRIP_TRAILING_WHITESPACE)
  separate_arguments(_llvm_static_libs UNIX_COMMAND "${_llvm_static_libs}")
  target_link_directories(kbcc_llvm INTERFACE ${KBCC_LLVM_ROOT}/lib)
  target_link_libraries(kbcc_llvm INTERFACE -Wl,--start-group ${_clang_libs} ${_llvm_static_libs}
                        -Wl,--end-group rt dl z zstd tinfo pthread)
else()
  target_link_libraries(kbcc_llvm INTERFACE clang-cpp LLVM)
endif()

add_library(kbcc_thirdparty INTERFACE)
target_include_directories(kbcc_thirdparty SYSTEM INTERFACE ${LMDB_INCLUDE_DIR} ${XXHASH_INCLUDE_DIR}
                           ${SODIUM_INCLUDE_DIR} ${HIREDIS_INCLUDE_DIR})
