%:include <b.cuh>
??=include "c.cuh"
