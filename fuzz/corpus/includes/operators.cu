#if __has_include(<f.cuh>) && __has_include_next("g.cuh")
#endif
#include_next <h.cuh>
#import "i.cuh"
#embed "j.bin"
