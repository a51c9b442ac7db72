# Included into llama.cpp's CMake project while pip builds llama-cpp-python from its sdist.
# llama-cpp-python forces LLAMA_BUILD_COMMON on (a plain -DLLAMA_BUILD_COMMON=OFF is
# overridden), yet never uses that library; with mtmd (multimodal, LLAVA_BUILD=OFF) it is two
# thirds of the build time on two cores. Forcing the cache entry here wins over its setting.
set(LLAMA_BUILD_COMMON OFF CACHE BOOL "" FORCE)
