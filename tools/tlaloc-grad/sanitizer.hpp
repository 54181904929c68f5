// Whether the tool is built with AddressSanitizer (GCC's and Clang's spellings).
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define TLALOC_GRAD_ASAN
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TLALOC_GRAD_ASAN
#endif
#endif
