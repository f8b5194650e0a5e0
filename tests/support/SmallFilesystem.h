#pragma once
// A tiny tmpfs for tests of what happens when a disk is full (a save on a full disk
// reported success). Mounting needs root or CAP_SYS_ADMIN; without it ok() is false and why()
// says so, for the test to QSKIP with.

#include <QByteArray>
#include <QFile>
#include <QString>
#include <QTemporaryDir>

#include <cerrno>
#include <cstring>

#include <sys/mount.h>

namespace kernelpad::test {

/// A 64 KiB tmpfs mounted on a temporary folder for the test's life, or a reason why not.
class SmallFilesystem {
public:
    static constexpr int kBytes = 64 * 1024;
    SmallFilesystem() {
        if (!m_dir.isValid()) {
            m_why = QStringLiteral("no temporary folder");
            return;
        }
        const QByteArray options = QByteArrayLiteral("size=") + QByteArray::number(kBytes);
        if (::mount("tmpfs", QFile::encodeName(m_dir.path()).constData(), "tmpfs", 0,
                    options.constData()) != 0) {
            m_why = QStringLiteral(
                        "cannot mount a tmpfs here (%1): it needs root or "
                        "CAP_SYS_ADMIN; tst_safefile's file-size-limit rows test the same path")
                        .arg(QString::fromLocal8Bit(strerror(errno)));
            return;
        }
        m_mounted = true;
    }
    ~SmallFilesystem() {
        if (m_mounted)
            ::umount2(QFile::encodeName(m_dir.path()).constData(), MNT_DETACH);
    }
    [[nodiscard]] bool ok() const { return m_mounted; }
    [[nodiscard]] QString why() const { return m_why; }
    [[nodiscard]] QString path(const QString& name) const { return m_dir.filePath(name); }
    /// Fills what is left with a ballast file.
    void fill() const {
        QFile ballast(path(QStringLiteral("ballast")));
        if (!ballast.open(QIODevice::WriteOnly | QIODevice::Unbuffered))
            return;
        const QByteArray block(4096, 'b');
        while (ballast.write(block) == block.size()) {
        }
    }

private:
    QTemporaryDir m_dir;
    bool m_mounted = false;
    QString m_why;
};

} // namespace kernelpad::test
