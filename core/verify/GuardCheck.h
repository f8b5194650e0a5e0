#pragma once
// Canaries: guard bytes before and after every buffer a run allocates, filled with a known
// byte before the first launch and read back after it and again after the timed launches,
// so that a kernel writing past either end of a buffer is caught without compute-sanitizer,
// also when only a later call of it does (a counter in a global). The device side is
// core/run/RunBuffers.h; this is the host-side reading of the guards.

#include "core/verify/VerificationReport.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QVector>

#include <optional>

namespace kernelpad {

/// Guard bytes on each side of a buffer: a multiple of 256, so the buffer's own start keeps
/// the alignment cuMemAlloc gives (tensor maps and vector loads rely on it).
inline constexpr qint64 kGuardBytes = 256;
/// The byte the guards hold before the launch (unlike kPoisonByte, so an output's unwritten
/// elements and a guard are never confused).
inline constexpr unsigned char kGuardByte = 0x5A;

/// What the guards of one buffer show after the run: the reach of writes outside it, in whole
/// elements from the buffer's end or start.
struct GuardFinding {
    QString buffer;
    qint64 count = 0;        ///< the buffer's elements
    qint64 elementBytes = 1; ///< one element's size
    qint64 bytesBefore = 0;  ///< from the furthest changed byte before the start to the start
    qint64 bytesAfter = 0;   ///< from the end to the furthest changed byte after it
    qint64 firstAfter = 0;   ///< the first changed element past the end (count + k)
    /// Found after the timed launches: the verified launch had left the guards untouched
    /// (JSON "duringTiming", written only when true).
    bool duringTiming = false;

    /// "out: 4 bytes written past the end (element 1024)", "in: 8 bytes written before the
    /// start (element -2)", or both joined; " during the timed launches, not the verified
    /// one" follows when duringTiming.
    [[nodiscard]] QString message() const;
    [[nodiscard]] QJsonObject toJson() const;
    /// Reads the JSON form; nullopt, with a message naming the field under `path`.
    static std::optional<GuardFinding> fromJson(const QJsonObject& json, QString* error,
                                                const QString& path = {});
    friend bool operator==(const GuardFinding& a, const GuardFinding& b);
};

/// Reads the guards of buffer `name` (`count` elements of `elementBytes`) as they were after
/// the run: `before` is the guard that ends at the buffer's start, `after` the one that begins
/// at its end, both of kGuardBytes that held kGuardByte before the launch. Nothing when both
/// are untouched.
[[nodiscard]] std::optional<GuardFinding> findGuardWrites(const QString& name, qint64 count,
                                                          qint64 elementBytes,
                                                          const QByteArray& before,
                                                          const QByteArray& after);

/// What a reading of the guards after the timed launches adds to `afterVerify`, the reading
/// after the verified launch: the buffers `afterTiming` finds written that `afterVerify` does
/// not name, marked duringTiming (a buffer already named keeps its first finding: its guards
/// were changed before the timing began).
[[nodiscard]] QVector<GuardFinding>
guardWritesDuringTiming(const QVector<GuardFinding>& afterVerify,
                        const QVector<GuardFinding>& afterTiming);

/// The failed verification row a finding adds to a run's verification (method "guard bytes",
/// `failure` its message), so the Verification panel, `run` and the test table all show it.
[[nodiscard]] BufferVerification guardVerification(const GuardFinding& finding);

} // namespace kernelpad
