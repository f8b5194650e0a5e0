#pragma once
// The runner values the window and the command line hold, behind the Engine's door (neither
// can include a core/runner header, docs/ARCHITECTURE.md): where a runner runs (RunnerSpec, a
// plain value of core/project: this computer, OpenSSH, a command; its settings JSON and
// limits) and one device of one (PoolEntry).

#include "core/project/RunnerSpec.h"
