#pragma once
// The textures and surfaces of one run: arrays made from their contents, objects over them,
// handles for packing, and surfaces read back after the verified launch, verified and kept
// as outputs. Everything is destroyed with the RunTextures, after the run.

#include "core/cuda/Device.h"
#include "core/cuda/TextureObject.h"
#include "core/launch/ArgumentSpec.h"
#include "core/run/RunBuffers.h"
#include "core/run/RunTypes.h"
#include "core/verify/VerificationReport.h"

#include <QByteArray>
#include <QString>
#include <QVector>

#include <optional>
#include <vector>

namespace kernelpad {

class CudaError;

/// The device's texture and surface limits per array shape (cuDeviceGetAttribute).
[[nodiscard]] TextureLimits readTextureLimits(const Device& device);

/// The array `arg` (a texture or surface argument) asks for, in the driver's terms.
[[nodiscard]] ArrayDesc arrayDescFor(const ArgumentSpec& arg);
/// How a texture argument samples its array, in the driver's terms.
[[nodiscard]] SamplerDesc samplerDescFor(const TextureSpec& spec);

/// The sentence for a driver that refused to make `arg`'s array or object: the argument, the
/// format, the shape and the call with its error ("texture 'tex': the device does not
/// support 4 × float16 texels in a 2D array (64 x 64) ...").
[[nodiscard]] QString describeRefusal(const ArgumentSpec& arg, const CudaError& error);

/// One texture or surface argument of a run.
struct RunTexture {
    int argIndex = -1;
    QString name;
    bool surface = false;
    ValueType type; ///< of one channel value
    qint64 count = 0;
    Direction direction = Direction::In;
    VerifySpec verify;
    QByteArray initial; ///< the contents uploaded (the poison pattern for "out" surfaces)
    QByteArray result;  ///< a surface's contents after the verified launch
    TextureObject object;
};

/// Every texture and surface of one run.
class RunTextures {
public:
    /// Checks each against `limits`, makes its contents (init patterns, .npy relative to
    /// `baseDir`), array and object, and queues the uploads on `stream`. Nothing, with the
    /// sentence in `error`, for bad input: a problem in the spec, a limit, a format the
    /// device refuses. Other driver errors throw CudaError.
    static std::optional<RunTextures> create(const QVector<ArgumentSpec>& args,
                                             const QString& baseDir, const TextureLimits& limits,
                                             const Stream& stream, QString* error);
    /// create() with `device`'s limits, read only when `args` hold a texture or surface.
    static std::optional<RunTextures> create(const QVector<ArgumentSpec>& args,
                                             const QString& baseDir, const Device& device,
                                             const Stream& stream, QString* error);

    [[nodiscard]] bool isEmpty() const { return m_items.empty(); }
    [[nodiscard]] const std::vector<RunTexture>& items() const { return m_items; }
    /// Puts each object's handle at its argument's index of `addresses` (PackedArgs::pack).
    void applyHandles(QVector<quint64>& addresses) const;
    /// The handles by argument index, 0 for the other arguments.
    [[nodiscard]] QVector<quint64> handles(int argCount) const;
    /// Copies every out/inout surface back and waits for it; after the verified launch.
    void readSurfaces(const Stream& stream);
    /// One report per surface with a verification method: an expression over the scalars,
    /// the inputs of `buffers`, the textures' contents and `i`, or a .npy file.
    [[nodiscard]] QVector<BufferVerification> verify(const QVector<ArgumentSpec>& args,
                                                     const std::vector<RunBuffer>& buffers,
                                                     const QString& projectDir) const;
    /// The surfaces read back, as outputs of the run.
    [[nodiscard]] QVector<OutputBuffer> outputs() const;

private:
    std::vector<RunTexture> m_items;
};

} // namespace kernelpad
