// What the library exports. It is built with every symbol hidden
// (-fvisibility=hidden); each public header declares its API between
// TLALOC_PUBLIC_BEGIN and TLALOC_PUBLIC_END, which gives those declarations default
// visibility, so that libtlaloc.so exports the public API and nothing of its
// internals (docs/ARCHITECTURE.md, "Layers").
#pragma once

#define TLALOC_PUBLIC_BEGIN _Pragma("GCC visibility push(default)")
#define TLALOC_PUBLIC_END _Pragma("GCC visibility pop")
