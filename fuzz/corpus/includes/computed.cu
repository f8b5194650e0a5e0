/* x
*/ #include "k.cuh"
// #include "not/a/directive.cuh"
#define H "l.cuh"
#include H
