// random_programs.cpp as written: tl::grad traces at run time.
#include "random_programs.cpp"
