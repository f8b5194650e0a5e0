#pragma once
// What the driver's JIT reported while it compiled a module's PTX (cuModuleLoadDataEx with the
// CU_JIT_INFO_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER and CU_JIT_WALL_TIME options).

#include <QJsonObject>
#include <QString>

#include <optional>

namespace kernelpad {

/// The driver JIT's logs and times for one module loaded from PTX (a virtual arch).
struct JitLog {
    bool used = false;   ///< the module was loaded from PTX; false for a CUBIN
    bool reused = false; ///< the module loaded by an earlier run was kept: no JIT this run
    QString target;      ///< the arch the JIT compiled for ("sm_90")
    QString infoLog;     ///< CU_JIT_INFO_LOG_BUFFER
    QString errorLog;    ///< CU_JIT_ERROR_LOG_BUFFER
    double jitMs = 0;    ///< CU_JIT_WALL_TIME: the JIT's own compile and link time
    double loadMs = 0;   ///< host wall time of the whole cuModuleLoadDataEx call
    QString failure;     ///< why the load failed (the CUresult's name); empty on success

    [[nodiscard]] bool failed() const { return !failure.isEmpty(); }
    [[nodiscard]] QJsonObject toJson() const;
    /// Reads the JSON form; nullopt, with a message naming the field under `path`, when a
    /// field is missing or malformed.
    static std::optional<JitLog> fromJson(const QJsonObject& json, QString* error,
                                          const QString& path = {});
};

} // namespace kernelpad
