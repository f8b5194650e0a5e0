#pragma once
// A module global (`__constant__` or `__device__` variable) as a project describes it: written
// before the launch, read back and verified after it, like a buffer.

#include "core/launch/ArgumentSpec.h"

#include <QJsonObject>
#include <QString>

#include <optional>

namespace kernelpad {

/// One `__constant__`/`__device__` variable the project sets or checks. Its contents are
/// described as a buffer's are: element type, count (an integer or an expression over integer
/// scalar arguments), initial contents (value, pattern or .npy), direction and verification.
struct GlobalSpec {
    /// The variable as the source names it ("filter", "ns::counter") or its symbol in the
    /// module ("_ZN2ns7counterE").
    QString name;
    BufferSpec value;

    /// Empty when the description can be used, else why not, naming the field.
    [[nodiscard]] QString problem() const;
    /// {"name": ..., "type": ..., "count": ..., "init": ..., "direction": ..., "verify": ...}
    [[nodiscard]] QJsonObject toJson() const;
    static std::optional<GlobalSpec> fromJson(const QJsonObject& json, QString* error);
    friend bool operator==(const GlobalSpec& a, const GlobalSpec& b) {
        return a.toJson() == b.toJson();
    }
};

} // namespace kernelpad
