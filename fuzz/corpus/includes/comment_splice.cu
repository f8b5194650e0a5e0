#/* one
 two */include "d.cuh"
#inc\
lude "e.cuh"
