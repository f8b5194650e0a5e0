#pragma once
// A throwaway OpenSSH server on a free loopback port, run as the current user, with its own
// host key, a user key made for it, and a client config that uses only those: a runner over
// "ssh" to it exercises the real ssh path without touching the user's ~/.ssh.

#include "core/project/RunnerSpec.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QThread>

#include <memory>

#include <pwd.h>
#include <unistd.h>

namespace kernelpad::test {

class LoopbackSsh {
public:
    static constexpr const char* kSshd = "/usr/sbin/sshd";

    /// Why no server can be started here (no sshd, no ssh), or empty.
    static QString unavailable() {
        if (!QFileInfo(QString::fromLatin1(kSshd)).isExecutable())
            return QStringLiteral("%1 is missing (Debian: apt-get install openssh-server)")
                .arg(QString::fromLatin1(kSshd));
        if (!QFileInfo::exists(QStringLiteral("/usr/bin/ssh")) &&
            !QFileInfo::exists(QStringLiteral("/bin/ssh")))
            return QStringLiteral("ssh is missing (Debian: apt-get install openssh-client)");
        return {};
    }

    ~LoopbackSsh() {
        if (m_sshd) {
            m_sshd->kill();
            m_sshd->waitForFinished(3000);
        }
    }

    /// Starts the server; false with `error`.
    bool start(QString* error) {
        if (!m_dir.isValid()) {
            *error = QStringLiteral("no temporary folder");
            return false;
        }
        if (!keygen(QStringLiteral("host_key"), error) ||
            !keygen(QStringLiteral("user_key"), error))
            return false;
        QFile::copy(path("user_key.pub"), path("authorized_keys"));
        // root's sshd separates privileges into this folder (the package's service makes it).
        if (::geteuid() == 0)
            QDir().mkpath(QStringLiteral("/run/sshd"));
        const passwd* pw = ::getpwuid(::geteuid());
        m_user = pw ? QString::fromLocal8Bit(pw->pw_name) : qEnvironmentVariable("USER");
        for (int attempt = 0; attempt < 8; ++attempt) {
            m_port = 20000 + int(QRandomGenerator::global()->bounded(40000));
            writeConfigs();
            m_sshd = std::make_unique<QProcess>();
            m_sshd->setProcessChannelMode(QProcess::MergedChannels);
            m_sshd->start(QString::fromLatin1(kSshd), {QStringLiteral("-D"), QStringLiteral("-e"),
                                                       QStringLiteral("-f"), path("sshd_config")});
            if (!m_sshd->waitForStarted(5000)) {
                *error = QStringLiteral("sshd did not start: ") + m_sshd->errorString();
                return false;
            }
            // Listening once a client gets through; a taken port makes sshd exit.
            for (int i = 0; i < 50 && m_sshd->state() == QProcess::Running; ++i) {
                QProcess probe;
                probe.start(QStringLiteral("ssh"),
                            {QStringLiteral("-F"), path("ssh_config"),
                             QStringLiteral("kp-loopback"), QStringLiteral("true")});
                if (probe.waitForFinished(10000) && probe.exitStatus() == QProcess::NormalExit &&
                    probe.exitCode() == 0)
                    return true;
                m_lastProbe = QString::fromLocal8Bit(probe.readAllStandardError());
                QThread::msleep(100);
            }
            m_log = QString::fromLocal8Bit(m_sshd->readAll());
            m_sshd->kill();
            m_sshd->waitForFinished(3000);
            m_sshd.reset();
        }
        *error =
            QStringLiteral("sshd would not accept a connection: %1 %2").arg(m_log, m_lastProbe);
        return false;
    }

    /// A runner on this server running `remoteCli serve` (its path on "the remote side").
    [[nodiscard]] RunnerSpec spec(const QString& remoteCli) const {
        RunnerSpec s;
        s.kind = RunnerSpec::Kind::Ssh;
        s.host = QStringLiteral("kp-loopback");
        s.sshOptions = {QStringLiteral("-F"), path("ssh_config")};
        s.remotePath = remoteCli;
        return s;
    }
    [[nodiscard]] QString path(const char* name) const {
        return m_dir.filePath(QString::fromLatin1(name));
    }
    [[nodiscard]] QString path(const QString& name) const { return m_dir.filePath(name); }
    [[nodiscard]] int port() const { return m_port; }

private:
    bool keygen(const QString& name, QString* error) {
        QProcess p;
        p.start(QStringLiteral("ssh-keygen"),
                {QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"),
                 QStringLiteral("-N"), QString(), QStringLiteral("-f"), path(name)});
        if (!p.waitForFinished(20000) || p.exitCode() != 0) {
            *error = QStringLiteral("ssh-keygen failed: ") + QString::fromLocal8Bit(p.readAll());
            return false;
        }
        return true;
    }

    void writeConfigs() const {
        QFile server(path("sshd_config"));
        server.open(QIODevice::WriteOnly | QIODevice::Truncate);
        server.write(QStringLiteral("Port %1\n"
                                    "ListenAddress 127.0.0.1\n"
                                    "HostKey %2\n"
                                    "AuthorizedKeysFile %3\n"
                                    "PidFile %4\n"
                                    "StrictModes no\n"
                                    "UsePAM no\n"
                                    "PasswordAuthentication no\n"
                                    "KbdInteractiveAuthentication no\n"
                                    "PubkeyAuthentication yes\n"
                                    "PermitRootLogin prohibit-password\n"
                                    "AllowUsers %5\n")
                         .arg(m_port)
                         .arg(path("host_key"), path("authorized_keys"), path("sshd.pid"), m_user)
                         .toUtf8());
        QFile client(path("ssh_config"));
        client.open(QIODevice::WriteOnly | QIODevice::Truncate);
        client.write(QStringLiteral("Host kp-loopback\n"
                                    "  HostName 127.0.0.1\n"
                                    "  Port %1\n"
                                    "  User %2\n"
                                    "  IdentityFile %3\n"
                                    "  IdentitiesOnly yes\n"
                                    "  IdentityAgent none\n"
                                    "  UserKnownHostsFile %4\n"
                                    "  StrictHostKeyChecking accept-new\n"
                                    "  BatchMode yes\n"
                                    "  LogLevel ERROR\n")
                         .arg(m_port)
                         .arg(m_user, path("user_key"), path("known_hosts"))
                         .toUtf8());
    }

    QTemporaryDir m_dir;
    std::unique_ptr<QProcess> m_sshd;
    QString m_user;
    QString m_log;
    QString m_lastProbe;
    int m_port = 0;
};

} // namespace kernelpad::test
