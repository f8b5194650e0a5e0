#pragma once
// RunRequest -> ExecutionSession -> RunResult (docs/ARCHITECTURE.md, "Data flow of one run"), with
// everything a result holds: one include for the code that handles runs as a whole (the window's
// panels, the CLI). Each type lives in its own header.

#include "core/run/ConsoleOutput.h"
#include "core/run/KernelResources.h"
#include "core/run/OutputBuffer.h"
#include "core/run/RunRequest.h"
#include "core/run/RunResult.h"
#include "core/run/RunStatus.h"
#include "core/run/SanitizerReport.h"
#include "core/run/Timing.h"
