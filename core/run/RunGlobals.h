#pragma once
// The module globals of one run: matched against the compiled module,
// written before the verified launch, read back and verified after it.

#include "core/compile/CompileResult.h"
#include "core/cuda/Module.h"
#include "core/cuda/Stream.h"
#include "core/project/Project.h"
#include "core/run/RunBuffers.h"
#include "core/verify/VerificationReport.h"

#include <QByteArray>
#include <QHash>
#include <QString>
#include <QVector>

#include <optional>
#include <vector>

namespace kernelpad {

/// One project global with its resolved size, initial contents and (once bound) address.
struct RunGlobal {
    QString name;    ///< as the project names it
    QString lowered; ///< the module's symbol
    QString space;   ///< "const" or "global", from the PTX
    ValueType type;
    qint64 count = 0;
    qint64 bytes = 0;
    Direction direction = Direction::In;
    VerifySpec verify;
    QByteArray initial; ///< contents written before the launch (the poison byte for "out")
    CUdeviceptr address = 0;
};

/// Host-side preparation: each project global is found among the compiled module's globals
/// (by its source name or its symbol), its count resolved, its size checked against the
/// PTX declaration's and its contents made. The error names the global: "globals[0] 'filtr':
/// the module has no __constant__ or __device__ variable of that name; it has: filter".
[[nodiscard]] std::optional<std::vector<RunGlobal>> prepareGlobals(const Project& project,
                                                                   const QString& baseDir,
                                                                   const CompileResult& compiled,
                                                                   QString* error);

/// Looks each global up in the loaded module (cuModuleGetGlobal) and checks the driver's size
/// against the project's; empty when all are bound, else the message naming the global.
[[nodiscard]] QString bindGlobals(std::vector<RunGlobal>& globals, const Module& module);

/// Queues the initial contents of every global on `stream` (ordered before the launch that
/// follows on it; the host bytes live in `globals` until the stream is synchronised).
void writeGlobals(const std::vector<RunGlobal>& globals, const Stream& stream);

/// Queues copies of every out/inout global into `outputs` (by name); valid after the stream
/// is synchronised.
void readGlobals(const std::vector<RunGlobal>& globals, const Stream& stream,
                 QHash<QString, QByteArray>* outputs);

/// One report per global that asks for verification: an expression over the scalars, the
/// inputs (buffers and in/inout globals, element i) and i, or a .npy file.
[[nodiscard]] QVector<BufferVerification> verifyGlobals(const std::vector<RunGlobal>& globals,
                                                        const QHash<QString, QByteArray>& outputs,
                                                        const Project& project,
                                                        const std::vector<RunBuffer>& buffers,
                                                        const QString& baseDir);

/// "__constant__ float[9]": how a module global is shown in messages and lists (the PTX type,
/// ".b8[36]", where the source's declaration was not read).
[[nodiscard]] QString describeModuleGlobal(const ModuleGlobal& global);

} // namespace kernelpad
