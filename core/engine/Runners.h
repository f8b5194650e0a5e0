#pragma once
// The runner values the window holds, behind the Engine's door (ui/ includes no core/runner
// header, docs/ARCHITECTURE.md): where a runner runs (RunnerSpec: this computer, OpenSSH, a
// command; its settings JSON and limits) and one device of one (PoolEntry).

#include "core/runner/RunnerSpec.h"
