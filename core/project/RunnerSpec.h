#pragma once
// Where a runner process runs: this computer (kernelpad-cli serve next to this program), another
// computer through OpenSSH (the user's own ssh config, keys and agent; never a password
// prompt), or any command that ends in a runner speaking Protocol.h on its stdin/stdout (a
// Slurm `srun --gpus=1 ... kernelpad-cli serve`). RunnerConnection runs program()/arguments().
// A plain value of the settings (Preferences, --runner), below core/runner so that the window
// and the command line hold it without seeing the runner layer (docs/ARCHITECTURE.md).

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace kernelpad {

/// Outputs larger than this stay on a streaming runner unless the client says otherwise
/// (the protocol's default, core/runner/Protocol.h).
inline constexpr qint64 kDefaultKeepBeyondBytes = qint64(64) << 20;

struct RunnerSpec {
    enum class Kind { Local, Ssh, Command };

    Kind kind = Kind::Local;
    /// Shown before device names ("gpu-box: NVIDIA H100 ..."); the host for Ssh by default.
    QString name;
    // Ssh
    QString host;
    QString user;           ///< empty: ssh's own choice (config, $USER)
    int port = 0;           ///< 0: ssh's own choice
    QStringList sshOptions; ///< extra arguments before the host, e.g. {"-F", "/path/config"}
    QString remotePath; ///< kernelpad-cli on the remote side; empty: `kernelpad-cli` on its PATH
    // Command
    QString commandLine; ///< split shell-like (QProcess::splitCommand)
    /// How long the runner may take to say hello; 0: the kind's default (Command runners wait
    /// for a batch system's queue).
    int helloLimitMs = 0;
    /// Streamed outputs larger than this stay on the runner until the buffer viewer asks for a
    /// range; -1: kDefaultKeepBeyondBytes (64 MiB). $KERNELPAD_STREAM_KEEP_BYTES overrides it.
    qint64 keepBeyondBytes = -1;

    static constexpr int kLocalHelloLimitMs = 60000;
    static constexpr int kSshHelloLimitMs = 30000;
    static constexpr int kCommandHelloLimitMs = 600000;
    /// The longest hello limit a runner may be given: a day in a batch queue.
    static constexpr int kMaxHelloLimitMs = 24 * 3600 * 1000;
    /// The largest keep limit: 1 TiB, more than any GPU's memory today.
    static constexpr qint64 kMaxKeepBeyondBytes = qint64(1) << 40;

    [[nodiscard]] static RunnerSpec local();
    [[nodiscard]] bool isLocal() const { return kind == Kind::Local; }
    /// The name shown to the user: name, else "this computer", the host, or the command's first
    /// word.
    [[nodiscard]] QString displayName() const;
    /// ssh's destination: [user@]host.
    [[nodiscard]] QString destination() const;
    /// The hello limit in effect (helloLimitMs or the kind's default).
    [[nodiscard]] int effectiveHelloLimitMs() const;
    /// The keep limit in effect: $KERNELPAD_STREAM_KEEP_BYTES when set, else keepBeyondBytes,
    /// else kDefaultKeepBeyondBytes.
    [[nodiscard]] qint64 effectiveKeepBeyondBytes() const;

    /// Reads the Preferences field "Hello time limit" in seconds ("" or "0": the kind's
    /// default); false with a message naming the field when it is not a number of seconds.
    bool setHelloLimitText(const QString& seconds, QString* error);
    /// Reads the Preferences field "Keep outputs larger than" in MiB ("": the default); false
    /// with a message naming the field.
    bool setKeepLimitText(const QString& mebibytes, QString* error);
    /// The two fields' texts as setHelloLimitText and setKeepLimitText read them ("" for the
    /// defaults).
    [[nodiscard]] QString helloLimitText() const;
    [[nodiscard]] QString keepLimitText() const;

    /// The program and arguments that start the runner; for Local, `localRunner serve`. False with
    /// a sentence in `error` for an incomplete spec (no host, an empty command line).
    bool command(const QString& localRunner, QString* program, QStringList* arguments,
                 QString* error) const;
    /// Why the spec cannot be used, or empty.
    [[nodiscard]] QString validate() const;

    /// Settings form: {"kind":"ssh","name":...,"host":...,...}; fields left out when default.
    [[nodiscard]] QJsonObject toJson() const;
    /// Reads toJson()'s form; `error` names the field.
    [[nodiscard]] static std::optional<RunnerSpec> fromJson(const QJsonObject& o, QString* error);

    /// The CLI syntax: `local`, `ssh:[user@]host[:port][/path/to/kernelpad-cli]` or
    /// `cmd:<command line>`; `error` says what is wrong and shows the syntax.
    [[nodiscard]] static std::optional<RunnerSpec> parse(const QString& text, QString* error);
    /// The CLI syntax for this spec (parse(toText()) gives it back; ssh options are not part of
    /// it).
    [[nodiscard]] QString toText() const;

    /// $KERNELPAD_RUNNER_SPEC, parsed; nullopt when unset (or empty). A bad value fills `error`.
    [[nodiscard]] static std::optional<RunnerSpec> fromEnvironment(QString* error);

    bool operator==(const RunnerSpec& o) const;
    bool operator!=(const RunnerSpec& o) const { return !(*this == o); }
};

/// True when this computer's NVRTC cannot be loaded (no CUDA toolkit here) or must not be used
/// ($KERNELPAD_NO_NVRTC=1, the tests that play such a computer): compiles then go to a runner
/// elsewhere. The first call loads NVRTC, so keep it off the UI thread.
[[nodiscard]] bool nvrtcUnavailableHere();
/// Why nvrtcUnavailableHere() is true, with what to do; empty when NVRTC is here.
[[nodiscard]] QString nvrtcUnavailableReason();

/// This build's KernelPad version (CMake's PROJECT_VERSION).
[[nodiscard]] QString kernelpadVersion();

/// One runner of a pool (RunnerPool.h), a plain value the window also holds: where it runs and
/// which of that runner's devices it uses.
struct PoolEntry {
    RunnerSpec spec;    ///< this computer by default
    int device = 0;     ///< the device's ordinal on that runner
    QString deviceName; ///< as the runner listed it; empty when it was not asked

    bool operator==(const PoolEntry& o) const {
        return spec == o.spec && device == o.device && deviceName == o.deviceName;
    }
};

} // namespace kernelpad
