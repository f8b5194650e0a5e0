#pragma once
// A stand-in nvdisasm for the tests that stop disassemblies (tests/core/tst_sassjob.cpp,
// tests/ui/tst_sassearly.cpp): a shell script in a temporary CUDA_HOME that logs the start and
// the end of each process with its pid, refuses a file that is not an ELF, prints the recorded
// saxpy listing and, while a "slow" flag of its kind of process is set, sleeps first.

#include "RecordedSass.h"
#include "TestPaths.h"

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QVector>

#include <csignal>

namespace kernelpad::test {

class StandInNvdisasm {
public:
    /// The sleep while a slow flag is set: far longer than any test waits for a kill.
    static constexpr int kSlowSeconds = 20;

    /// Which of disassembleCubin()'s two processes a slow flag holds back.
    enum class Process { Listing, LifeRanges, Both };

    /// Writes the script and points CUDA_HOME at its folder (CUDA_PATH unset); false when the
    /// script could not be written.
    [[nodiscard]] bool install() {
        const QByteArray log = logPath().toUtf8();
        const QByteArray dir = m_dir.path().toUtf8();
        // The slow flag is read before the start is logged, so that a test that clears it
        // once it sees the start still gets a process that sleeps. The sleep is detached from
        // the pipes, so that killing the shell ends its output at once; the CUBIN is the last
        // argument of both processes.
        return installNvdisasm(
            m_dir, "case \"$*\" in *--print-life-ranges*) which=life;; *) which=listing;; esac\n"
                   "slow=; [ -f '" +
                       dir + "'/slow-$which ] && slow=1\n" + "echo \"start $$ $*\" >> '" + log +
                       "'\n" + kNvdisasmTakesACubin + "[ -n \"$slow\" ] && sleep " +
                       QByteArray::number(kSlowSeconds) + " </dev/null >/dev/null 2>&1\n" +
                       "echo \"end $$\" >> '" + log + "'\n" + "cat '" +
                       recordedSassPath("saxpy.sass-gi.txt") + "'\n");
    }

    /// Forgets the processes logged so far and clears every slow flag.
    void reset() const {
        QFile::remove(logPath());
        setSlow(Process::Both, false);
    }

    /// Sets or clears the flag that makes `which` sleep before it answers; false when the flag
    /// could not be written.
    bool setSlow(Process which, bool on) const {
        bool ok = true;
        for (const char* name : {"slow-listing", "slow-life"}) {
            const bool listing = qstrcmp(name, "slow-listing") == 0;
            if ((which == Process::Listing && !listing) ||
                (which == Process::LifeRanges && listing))
                continue;
            QFile flag(m_dir.filePath(QLatin1String(name)));
            ok = (on ? flag.open(QIODevice::WriteOnly) : (!flag.exists() || flag.remove())) && ok;
        }
        return ok;
    }

    /// The pids of the processes started since reset(), in order.
    [[nodiscard]] QVector<qint64> started() const { return pids("start "); }
    /// The pids that ran to their end.
    [[nodiscard]] QVector<qint64> ended() const { return pids("end "); }

    /// Whether process `pid` still runs.
    [[nodiscard]] static bool alive(qint64 pid) { return pid > 0 && ::kill(pid_t(pid), 0) == 0; }

private:
    [[nodiscard]] QString logPath() const { return m_dir.filePath(QStringLiteral("nvdisasm.log")); }

    [[nodiscard]] QVector<qint64> pids(const QByteArray& prefix) const {
        QVector<qint64> found;
        QFile file(logPath());
        if (file.open(QIODevice::ReadOnly)) {
            for (const QByteArray& line : file.readAll().split('\n')) {
                if (line.startsWith(prefix))
                    found << line.mid(prefix.size()).split(' ').value(0).trimmed().toLongLong();
            }
        }
        return found;
    }

    QTemporaryDir m_dir;
};

} // namespace kernelpad::test
