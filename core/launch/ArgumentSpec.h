#pragma once
// What the user says about each kernel argument: scalars by value, buffers with their size,
// initial contents, direction and verification, and the launch configuration.

#include "core/cuda/LaunchDims.h"
#include "core/io/JsonFields.h"
#include "core/launch/TensorMapSpec.h"
#include "core/launch/TextureSpec.h"
#include "core/launch/ValueType.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QMetaType>
#include <QString>
#include <QVector>

#include <array>
#include <optional>

namespace kernelpad {

/// How a buffer is filled before the launch.
struct InitSpec {
    /// Special: uniform [low, high) with a `rate` of its values replaced by the type's special
    /// values (NaN, infinities, -0, denormals, extremes: specialValueBits() in BufferInit.h).
    enum class Kind { Zeros, Ones, Constant, Iota, Uniform, Normal, File, Special };
    Kind kind = Kind::Zeros;
    double value = 0.0;           ///< Constant: the value; Iota: the start
    double step = 1.0;            ///< Iota: the increment
    double low = 0.0, high = 1.0; ///< Uniform, Special: [low, high)
    double rate = 0.05;           ///< Special: the share of values replaced, in [0, 1]
    double mean = 0.0, stddev = 1.0;
    quint64 seed = 0; ///< Uniform/Normal/Special: same seed, same contents
    QString path;     ///< File: a .npy file, relative to the project

    /// Empty when the values can fill a buffer, else why not, naming the field ("low: 2 is
    /// above high (1)"). The one rule set of the .kpad loader and the argument table.
    [[nodiscard]] QString problem() const;
    [[nodiscard]] QJsonObject toJson() const;
    static std::optional<InitSpec> fromJson(const QJsonObject& json, QString* error);
};

enum class Direction { In, Out, InOut };
[[nodiscard]] QString directionName(Direction d); ///< "in", "out", "inout"
[[nodiscard]] std::optional<Direction> directionFromName(const QString& name);

/// How NaN compares in a check. Equal (the default): NaN equals NaN, as +Inf equals +Inf and
/// -Inf equals -Inf (a kernel that propagates NaN where the reference does passes). Differ:
/// NaN equals nothing, not even NaN (IEEE 754's rule); infinities still equal themselves.
enum class NanComparison { Equal, Differ };
[[nodiscard]] QString nanComparisonName(NanComparison nan); ///< "equal", "differ"
[[nodiscard]] std::optional<NanComparison> nanComparisonFromName(const QString& name);

/// How an output buffer is checked after the run.
struct VerifySpec {
    enum class Kind { None, Reference, Expression, File };
    Kind kind = Kind::None;
    QString referenceKernel; ///< Reference: a kernel (or name expression) in the same source
    QString expression;      ///< Expression: muParser over inputs, scalars and i, e.g. "a*x+y"
    QString path;            ///< File: expected values in a .npy file, relative to the project
    double atol = 1e-6;
    double rtol = 1e-5;
    /// Ulps of the output type an element may be off (0: unused); either this or atol/rtol
    /// is enough (core/verify/Verify.h Tolerance). "ulp" alone in JSON zeroes atol/rtol.
    double ulp = 0;
    /// JSON "nan": "equal" | "differ", written only when Differ.
    NanComparison nan = NanComparison::Equal;

    /// Empty when the check can run, else why not, naming the field ("atol: must be >= 0").
    /// The one rule set of the .kpad loader and the argument table.
    [[nodiscard]] QString problem() const;
    [[nodiscard]] QJsonObject toJson() const;
    static std::optional<VerifySpec> fromJson(const QJsonObject& json, QString* error);
};

/// A device buffer passed to the kernel as a pointer.
struct BufferSpec {
    ValueType elementType = ValueType::of(ScalarType::Float32);
    /// Element count: an integer ("1024") or an expression over integer scalar arguments
    /// ("n", "n*n", "rows*cols"); resolved by resolveCount().
    QString count = QStringLiteral("1");
    InitSpec init;
    Direction direction = Direction::In;
    VerifySpec verify;

    [[nodiscard]] QJsonObject toJson() const;
    static std::optional<BufferSpec> fromJson(const QJsonObject& json, QString* error);
};

/// One kernel parameter as the user described it.
struct ArgumentSpec {
    /// Texture, Surface: a CUDA array passed as an 8-byte object handle (TextureArgument.h).
    /// TensorMap: a 128-byte CUtensorMap over a buffer argument, by value (TensorMapSpec.h).
    enum class Kind { Scalar, Buffer, Texture, Surface, TensorMap };
    QString name;
    Kind kind = Kind::Scalar;
    ValueType type = ValueType::of(ScalarType::Float32); ///< Scalar: its type
    /// Scalar: the value as typed. Integers and floats as usual ("2.5", "-3", "0x10"),
    /// bool "true"/"false"/"1"/"0", complex "re, im", struct field values separated by commas
    /// in field order (array fields give each element).
    QString value = QStringLiteral("0");
    BufferSpec buffer;       ///< Buffer: its description; Texture, Surface: the array's contents
    TextureSpec texture;     ///< Texture, Surface: the array and the sampler
    TensorMapSpec tensorMap; ///< TensorMap: the map and the buffer it describes

    [[nodiscard]] bool isBuffer() const { return kind == Kind::Buffer; }
    [[nodiscard]] bool isScalar() const { return kind == Kind::Scalar; }
    [[nodiscard]] bool isImage() const { return kind == Kind::Texture || kind == Kind::Surface; }
    [[nodiscard]] bool isTensorMap() const { return kind == Kind::TensorMap; }
    [[nodiscard]] QJsonObject toJson() const;
    static std::optional<ArgumentSpec> fromJson(const QJsonObject& json, QString* error);
};

/// Grid, block and dynamic shared memory of one launch.
struct LaunchConfig {
    std::array<int, 3> grid{1, 1, 1};
    std::array<int, 3> block{1, 1, 1};
    int sharedMemBytes = 0;
    /// Thread block cluster dimensions (compute capability 9.0+); zeros: no cluster, or the
    /// kernel's own __cluster_dims__. JSON "cluster": [x, y, z], written only when set.
    std::array<int, 3> cluster{0, 0, 0};
    /// A cooperative launch (cooperative_groups::this_grid().sync()): every block must be
    /// resident at once. JSON "cooperative": true, written only when set.
    bool cooperative = false;

    [[nodiscard]] bool hasCluster() const { return cluster[0] > 0; }
    [[nodiscard]] qint64 clusterBlocks() const {
        return hasCluster() ? qint64(cluster[0]) * cluster[1] * cluster[2] : 0;
    }
    [[nodiscard]] qint64 totalBlocks() const { return qint64(grid[0]) * grid[1] * grid[2]; }
    [[nodiscard]] qint64 threadsPerBlock() const { return qint64(block[0]) * block[1] * block[2]; }
    [[nodiscard]] qint64 totalThreads() const {
        return threadsPerBlock() * qint64(grid[0]) * grid[1] * grid[2];
    }
    [[nodiscard]] QJsonObject toJson() const;
    static std::optional<LaunchConfig> fromJson(const QJsonObject& json, QString* error);
    /// The dimensions core/cuda's Kernel::launch takes.
    [[nodiscard]] LaunchDims dims() const {
        return LaunchDims{grid, block, sharedMemBytes, cluster, cooperative};
    }
    friend bool operator==(const LaunchConfig& a, const LaunchConfig& b) {
        return a.grid == b.grid && a.block == b.block && a.sharedMemBytes == b.sharedMemBytes &&
               a.cluster == b.cluster && a.cooperative == b.cooperative;
    }
};

/// The same arguments in the same order, every field alike (as their .kpad JSON says).
[[nodiscard]] bool sameArguments(const QVector<ArgumentSpec>& a, const QVector<ArgumentSpec>& b);

} // namespace kernelpad

// Values the window queues between threads and tests keep in data rows.
Q_DECLARE_METATYPE(kernelpad::LaunchConfig)
