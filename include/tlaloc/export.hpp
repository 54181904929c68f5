// What the library exports. It is built with every symbol hidden
// (-fvisibility=hidden); each public header declares its API between
// TLALOC_PUBLIC_BEGIN and TLALOC_PUBLIC_END, which gives those declarations default
// visibility, so that libtlaloc.so exports the public API and nothing of its
// internals (docs/ARCHITECTURE.md, "Layers").
#pragma once

#define TLALOC_PUBLIC_BEGIN _Pragma("GCC visibility push(default)")
#define TLALOC_PUBLIC_END _Pragma("GCC visibility pop")

// A public function whose result carries no derivative, though it takes tensors
// (tl::argmax, tl::one_hot): the declaration says so, and tlaloc-grad, which parses
// it with Clang, reads it there. A function that records one op alone takes it from
// the op instead (OpDef::no_derivative).
#if defined(__clang__)
#define TLALOC_NO_DERIVATIVE [[clang::annotate("tlaloc::no_derivative")]]
#else
#define TLALOC_NO_DERIVATIVE
#endif
