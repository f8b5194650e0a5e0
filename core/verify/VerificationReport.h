#pragma once
// What verifying one output buffer found: a plain, JSON-serialisable value that RunResult
// carries (core/run/RunTypes.h).

#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace kernelpad {

/// One element that failed verification.
struct Mismatch {
    qint64 index = 0;
    double got = 0;
    double expected = 0;
};

/// The verification report of one output buffer.
struct BufferVerification {
    QString buffer;
    QString method; ///< "reference kernel saxpy_ref", "expression a*x+y", "file out.npy"
    bool passed = false;
    qint64 checked = 0; ///< elements (components for complex/struct) compared
    double maxAbsError = 0;
    double maxRelError = 0;
    /// The largest |got - expected| in ulps of the output type at `expected` (the spacing of
    /// that type there; 1 for integers).
    double maxUlpError = 0;
    qint64 mismatches = 0;
    qint64 nanCount = 0;  ///< NaN where the expected value is not NaN
    qint64 unwritten = 0; ///< elements still holding the poison pattern
    QVector<Mismatch> firstMismatches;
    QString error; ///< verification could not be done (bad expression, missing file)
    /// Why the check failed when its mismatches do not say: "out: 4 bytes written past the
    /// end (element 1024)" (JSON "failure", written only when set).
    QString failure;
    /// The check passed but proves less than it seems: "out: this check would also pass if
    /// the kernel wrote nothing (all zeros)" (JSON "warnings", written only when set).
    QStringList warnings;
    /// For float outputs: the error seen against the type's epsilon and an rtol that would
    /// still catch a real error (JSON "advice", written only when set).
    QString advice;
    /// The rtol `advice` suggests; 0 when there is no advice (JSON "suggestedRtol").
    double suggestedRtol = 0;
    /// `buffer` names a module global (__constant__/__device__), not a kernel argument
    /// (JSON "global": true, written only when set).
    bool global = false;

    [[nodiscard]] QJsonObject toJson() const;
    /// Reads the JSON form; nullopt, with a message naming the field under `path`, when a
    /// field is missing or malformed.
    static std::optional<BufferVerification> fromJson(const QJsonObject& json, QString* error,
                                                      const QString& path = {});
};

/// The byte every element of an output buffer is filled with before the launch; elements
/// still made of it afterwards were never written.
inline constexpr unsigned char kPoisonByte = 0xA5;

} // namespace kernelpad
