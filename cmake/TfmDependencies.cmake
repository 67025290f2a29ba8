# Every dependency is a Debian package; a missing one stops the configure step with the
# package to install (`make deps` installs them all).
set(TFM_DEBIAN_PACKAGES
    libcli11-dev libxtensor-dev libxtensor-blas-dev libopenblas-dev doctest-dev
    nlohmann-json3-dev libsentencepiece-dev pkg-config)

function(tfm_missing what package)
  message(FATAL_ERROR "tfm: ${what} not found. Install it with:\n"
                      "    apt-get install ${package}\n"
                      "or run `make deps` to install everything tfm needs.")
endfunction()

find_package(PkgConfig QUIET)
if(NOT PkgConfig_FOUND)
  tfm_missing("pkg-config" pkg-config)
endif()

find_package(CLI11 CONFIG QUIET)
if(NOT CLI11_FOUND)
  tfm_missing("CLI11" libcli11-dev)
endif()
find_package(xtl CONFIG QUIET)
find_package(xtensor CONFIG QUIET)
if(NOT xtensor_FOUND OR NOT xtl_FOUND)
  tfm_missing("xtensor" libxtensor-dev)
endif()
find_package(xtensor-blas CONFIG QUIET)
if(NOT xtensor-blas_FOUND)
  tfm_missing("xtensor-blas" libxtensor-blas-dev)
endif()
find_package(nlohmann_json CONFIG QUIET)
if(NOT nlohmann_json_FOUND)
  tfm_missing("nlohmann-json" nlohmann-json3-dev)
endif()
pkg_check_modules(OPENBLAS QUIET IMPORTED_TARGET openblas)
if(NOT OPENBLAS_FOUND)
  tfm_missing("OpenBLAS" libopenblas-dev)
endif()
pkg_check_modules(SENTENCEPIECE QUIET IMPORTED_TARGET sentencepiece)
if(NOT SENTENCEPIECE_FOUND)
  tfm_missing("SentencePiece" libsentencepiece-dev)
endif()
if(TFM_BUILD_TESTS)
  find_package(doctest CONFIG QUIET)
  if(NOT doctest_FOUND)
    tfm_missing("doctest" doctest-dev)
  endif()
endif()
find_package(Threads REQUIRED)
