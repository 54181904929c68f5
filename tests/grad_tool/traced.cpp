// functions.cpp as written: tl::grad traces at run time.
#include "functions.cpp"
