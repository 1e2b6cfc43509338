# CUDA detection for the GPU replay backend (exec/gpu). The backend builds
# wherever the CUDA Toolkit is found (no GPU is needed to build it); without
# a device at run time the GPU tests skip and the CLI says there is no GPU.
#   -DHLO_LSP_WITH_CUDA=OFF      build without the backend
#   -DCMAKE_CUDA_ARCHITECTURES=  target GPUs (default 90: H100/H200)
include(CheckLanguage)
if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX}
   AND EXISTS /usr/local/cuda/bin/nvcc)
  set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
endif()
# The sanitizer/fuzzer build uses clang-14, which nvcc does not take as its
# host compiler: leave CUDA out there unless asked for explicitly.
if(HLO_LSP_SANITIZE OR HLO_LSP_FUZZ)
  set(_hlo_lsp_cuda_default OFF)
else()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(_hlo_lsp_cuda_default ON)
  else()
    set(_hlo_lsp_cuda_default OFF)
  endif()
endif()
option(HLO_LSP_WITH_CUDA "Build the CUDA replay backend (exec/gpu)"
       ${_hlo_lsp_cuda_default})

if(HLO_LSP_WITH_CUDA)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 90)
  endif()
  if(NOT DEFINED CMAKE_CUDA_HOST_COMPILER)
    set(CMAKE_CUDA_HOST_COMPILER ${CMAKE_CXX_COMPILER})
  endif()
  enable_language(CUDA)
  # CMake 3.25 does not know nvcc's C++20 flag (nvcc 12+ has it).
  if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  endif()
  set(CMAKE_CUDA_STANDARD 20)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  set(CMAKE_CUDA_EXTENSIONS OFF)
  # hlo_exec compiles with -O3: the same for nvcc, which warns on two levels.
  set(CMAKE_CUDA_FLAGS_RELWITHDEBINFO "-O3 -g -DNDEBUG")
  find_package(CUDAToolkit REQUIRED)
  message(STATUS "hlo-lsp: CUDA backend on (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, "
                 "architectures ${CMAKE_CUDA_ARCHITECTURES})")
else()
  message(STATUS "hlo-lsp: CUDA backend off")
endif()
