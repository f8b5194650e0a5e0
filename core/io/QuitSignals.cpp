#include "QuitSignals.h"

#include <QSocketNotifier>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

#include <sys/signalfd.h>
#include <unistd.h>

namespace kernelpad {
namespace {

sigset_t quitSignalSet() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    return set;
}

} // namespace

void blockQuitSignals() {
    const sigset_t set = quitSignalSet();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void unblockQuitSignals() {
    const sigset_t set = quitSignalSet();
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

QuitSignals::QuitSignals(std::function<void(int)> onSignal, QObject* parent)
    : QObject(parent)
    , m_onSignal(std::move(onSignal)) {
    const sigset_t set = quitSignalSet();
    m_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    if (m_fd < 0) {
        std::fprintf(stderr, "kernelpad: Ctrl+C and SIGTERM cannot be read (signalfd: %s)\n",
                     std::strerror(errno));
        return;
    }
    m_notifier = new QSocketNotifier(m_fd, QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, &QuitSignals::readSignals);
}

QuitSignals::~QuitSignals() {
    if (m_fd >= 0)
        ::close(m_fd);
}

void QuitSignals::readSignals() {
    signalfd_siginfo info = {};
    while (::read(m_fd, &info, sizeof info) == ssize_t(sizeof info)) {
        if (m_onSignal)
            m_onSignal(int(info.ssi_signo));
    }
}

} // namespace kernelpad
