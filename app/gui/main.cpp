// The KernelPad desktop application.

#include "core/compile/CompileWatchdog.h"
#include "core/engine/Engine.h"
#include "core/io/QuitSignals.h"
#include "ui/CompileHistory.h"
#include "ui/Preferences.h"
#include "ui/ProjectDocument.h"
#include "ui/SignalQuit.h"
#include "ui/Workbench.h"
#include "ui/widgets/SweepPanel.h"
#include "ui/windows/MainWindow.h"
#include "ui/windows/OpenAtStart.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QTabWidget>
#include <QTimer>

#include <chrono>
#include <cstdio>

namespace {

// Docs screenshots must not hang a script: give up (and save what is there) after this.
constexpr int kScreenshotTimeoutMs = 60000;
// Lets the last results lay out and paint before the window is grabbed.
constexpr int kSettleMs = 300;
constexpr int kSmallestFileQuality = 0;
// The docs' screenshot size: a common laptop-plus display, where nothing may be clipped.
constexpr int kDefaultScreenshotWidth = 1600;
constexpr int kDefaultScreenshotHeight = 1000;
// How often a --tab screenshot looks whether its tab has what it waits for.
constexpr int kPollMs = 100;

/// The result tab a --tab screenshot shows, and what it waits for there.
enum class ShotTab { None, Sass, Diff, Occupancy, Profile, Sweep };

ShotTab shotTab(const QString& name, bool* ok) {
    *ok = true;
    if (name.isEmpty())
        return ShotTab::None;
    if (name == QLatin1String("sass"))
        return ShotTab::Sass;
    if (name == QLatin1String("diff"))
        return ShotTab::Diff;
    if (name == QLatin1String("occupancy"))
        return ShotTab::Occupancy;
    if (name == QLatin1String("profile"))
        return ShotTab::Profile;
    if (name == QLatin1String("sweep"))
        return ShotTab::Sweep;
    *ok = false;
    return ShotTab::None;
}

/// Grabs the window to a file once it shows what was asked for: the compile (and the
/// devices) for a plain screenshot, the run's results with --run, the profile (its tab, the
/// editor's margin and the roofline) with --profile.
class ScreenshotTaker : public QObject {
public:
    ScreenshotTaker(kernelpad::MainWindow* window, kernelpad::Engine* engine, QString file,
                    bool run, bool profile, ShotTab tab)
        : QObject(window)
        , m_window(window)
        , m_file(std::move(file))
        , m_run(run || profile)
        , m_profile(profile)
        , m_tab(tab) {
        connect(engine, &kernelpad::Engine::sassReady, this, [this] {
            if (m_tab == ShotTab::Sass && m_tabShown)
                finish(0);
        });
        connect(engine, &kernelpad::Engine::devicesChanged, this, [this] {
            m_devices = true;
            step();
        });
        connect(window->workbench(), &kernelpad::Workbench::compileShown, this, [this] {
            m_compiled = true;
            step();
        });
        connect(window->workbench(), &kernelpad::Workbench::runShown, this, [this] {
            // A profile follows its run in the workbench; the picture waits for the profile.
            if (!m_profile || !m_window->workbench()->isProfiling()) {
                if (m_profile)
                    finish(0);
                else
                    showTab();
            }
        });
        connect(window->workbench(), &kernelpad::Workbench::profileShown, this,
                [this](const kernelpad::ProfileOutcome& outcome) {
                    if (!outcome.ok())
                        std::fprintf(stderr, "kernelpad: profile failed: %s\n",
                                     qPrintable(outcome.error));
                    if (outcome.ok() && m_tab == ShotTab::Profile && !m_tabShown) {
                        m_tabShown = true;
                        if (auto* tabs =
                                m_window->findChild<QTabWidget*>(QStringLiteral("resultTabs")))
                            tabs->setCurrentIndex(kernelpad::MainWindow::ProfileTab);
                    }
                    finish(outcome.ok() ? 0 : 3);
                });
        QTimer::singleShot(kScreenshotTimeoutMs, this, [this] {
            std::fprintf(stderr, "kernelpad: screenshot timed out after %d s; saving anyway\n",
                         kScreenshotTimeoutMs / 1000);
            finish(2);
        });
    }

private:
    void step() {
        if (!m_devices || !m_compiled || m_started)
            return;
        if (m_tab == ShotTab::Diff && !m_secondCompile) {
            // The Diff tab compares two compiles: the project as it is, then with
            // --use_fast_math turned the other way, so that the picture shows what it changes.
            m_secondCompile = true;
            m_compiled = false;
            kernelpad::ProgramOptions options = m_window->document()->project().options;
            options.fastMath = !options.fastMath.value_or(false);
            m_window->document()->setOptions(options);
            m_window->compile();
            return;
        }
        m_started = true;
        if (!m_run) {
            showTab();
            return;
        }
        const QString reason = m_window->workbench()->runBlockedReason();
        if (!reason.isEmpty()) {
            std::fprintf(stderr, "kernelpad: cannot run (%s); screenshot without a run\n",
                         qPrintable(reason));
            finish(0);
            return;
        }
        if (m_profile)
            m_window->profile(); // runs first, then profiles that run
        else
            m_window->run();
    }

    /// Shows the asked tab and finishes once it has its content: the SASS answer, both
    /// compiles' reports for the Diff, at once for the others.
    void showTab() {
        auto* tabs = m_window->findChild<QTabWidget*>(QStringLiteral("resultTabs"));
        if (m_tab == ShotTab::None || !tabs) {
            finish(0);
            return;
        }
        if (m_tab == ShotTab::Sweep) {
            // The sweep is a dock, not a result tab: brought to the front of its column.
            if (auto* dock = m_window->findChild<QDockWidget*>(QStringLiteral("sweepDock"))) {
                dock->show();
                dock->raise();
                // The whole of its column, so that the results table and the chart show
                // below the form: the docks stacked with it step aside for the picture.
                const QList<QDockWidget*> tabbed = m_window->tabifiedDockWidgets(dock);
                for (QDockWidget* other : m_window->findChildren<QDockWidget*>())
                    if (other != dock && !tabbed.contains(other) && !other->isFloating() &&
                        m_window->dockWidgetArea(other) == m_window->dockWidgetArea(dock))
                        other->hide();
            }
            m_tabShown = true;
            // The project's results file, read now that the device (part of its name) is
            // known: the picture shows the sweep it holds, or why none is shown.
            if (auto* panel = m_window->findChild<kernelpad::SweepPanel*>()) {
                connect(panel, &kernelpad::SweepPanel::resultsFileLoaded, this,
                        [this] { finish(0); });
                panel->reloadResultsFile();
                return;
            }
            finish(0);
            return;
        }
        const int index = m_tab == ShotTab::Sass        ? kernelpad::MainWindow::SassTab
                          : m_tab == ShotTab::Diff      ? kernelpad::MainWindow::DiffTab
                          : m_tab == ShotTab::Occupancy ? kernelpad::MainWindow::OccupancyTab
                                                        : kernelpad::MainWindow::ProfileTab;
        m_tabShown = true;
        tabs->setCurrentIndex(index);
        if (m_tab == ShotTab::Diff) {
            auto* history =
                m_window->findChild<kernelpad::CompileHistory*>(QStringLiteral("compileHistory"));
            auto* poll = new QTimer(this);
            connect(poll, &QTimer::timeout, this, [this, history, poll] {
                if (!history || history->reportsReady()) {
                    poll->stop();
                    finish(0);
                }
            });
            poll->start(kPollMs);
        } else if (m_tab != ShotTab::Sass) {
            finish(0);
        }
    }

    void finish(int code) {
        if (m_done)
            return;
        m_done = true;
        QTimer::singleShot(kSettleMs, this, [this, code] {
            // For PNG, quality 0 is zlib's strongest compression: the docs' pictures stay small.
            const bool saved = m_window->grab().save(m_file, nullptr, kSmallestFileQuality);
            if (!saved)
                std::fprintf(stderr, "kernelpad: could not write %s\n", qPrintable(m_file));
            QCoreApplication::exit(saved ? code : 1);
        });
    }

    kernelpad::MainWindow* m_window;
    QString m_file;
    bool m_run;
    bool m_profile;
    ShotTab m_tab;
    bool m_tabShown = false;
    bool m_secondCompile = false;
    bool m_devices = false;
    bool m_compiled = false;
    bool m_started = false;
    bool m_done = false;
};

} // namespace

int main(int argc, char** argv) {
    // Before Qt or NVRTC start a thread (core/io/QuitSignals.h).
    kernelpad::blockQuitSignals();
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("KernelPad"));
    QApplication::setOrganizationName(QStringLiteral("KernelPad"));
    QApplication::setApplicationDisplayName(QStringLiteral("KernelPad"));
    QApplication::setApplicationVersion(QStringLiteral("0.1.0"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("A desktop playground for CUDA kernels."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(
        QStringLiteral("project"),
        QStringLiteral("A .kpad project to open (default: the welcome page)."));
    const QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QStringLiteral("Save a picture of the window to FILE once it is ready, then quit."),
        QStringLiteral("FILE"));
    const QCommandLineOption runOption(QStringLiteral("run"),
                                       QStringLiteral("Run the project once it has compiled."));
    const QCommandLineOption sizeOption(
        QStringLiteral("size"),
        QStringLiteral("Window size for --screenshot, WIDTHxHEIGHT (default 1600x1000)."),
        QStringLiteral("WxH"));
    const QCommandLineOption profileOption(
        QStringLiteral("profile"),
        QStringLiteral("With --screenshot: profile the project under Nsight Compute (after a "
                       "run) and take the picture with the profile in the editor's margin and "
                       "the roofline shown."));
    const QCommandLineOption tabOption(
        QStringLiteral("tab"),
        QStringLiteral("With --screenshot: the result tab to show, sass|diff|occupancy|profile, "
                       "or sweep (the Sweep dock with the project's results file, once read). "
                       "sass waits for the SASS; diff compiles twice (as the project is, then "
                       "with --use_fast_math turned the other way) and waits for both reports; "
                       "profile implies --profile."),
        QStringLiteral("TAB"));
    parser.addOption(screenshot);
    parser.addOption(tabOption);
    parser.addOption(runOption);
    parser.addOption(profileOption);
    parser.addOption(sizeOption);
    parser.process(app);

    // Edit ▸ Preferences' theme, before any window takes its colours from the palette.
    kernelpad::Preferences::applyTheme(kernelpad::Preferences::load().theme);
    int code = 0;
    {
        kernelpad::Engine engine;
        // Kernels run where Preferences says; choosing another runner there switches at once.
        engine.setRunner(kernelpad::Preferences::load().chosenRunner());
        QObject::connect(kernelpad::PreferencesNotifier::instance(),
                         &kernelpad::PreferencesNotifier::changed, &engine, [&engine] {
                             engine.setRunner(kernelpad::Preferences::load().chosenRunner());
                         });
        kernelpad::MainWindow window(&engine);
        const bool scripted = parser.isSet(screenshot);
        if (scripted) {
            // A screenshot run must never stop at a dialog, nor pick up crash leftovers.
            window.setPromptsEnabled(false);
            // The offscreen platform's screen is small; size the window as the docs show it.
            QSize size(kDefaultScreenshotWidth, kDefaultScreenshotHeight);
            if (parser.isSet(sizeOption)) {
                const QStringList wh = parser.value(sizeOption).split(QLatin1Char('x'));
                const QSize asked(wh.value(0).toInt(), wh.value(1).toInt());
                if (asked.isValid() && !asked.isEmpty())
                    size = asked;
                else
                    std::fprintf(stderr, "kernelpad: --size wants WIDTHxHEIGHT, e.g. 1280x800\n");
            }
            window.resize(size);
            bool tabOk = false;
            const ShotTab tab = shotTab(parser.value(tabOption), &tabOk);
            if (!tabOk) {
                std::fprintf(stderr,
                             "kernelpad: --tab wants sass, diff, occupancy, profile or sweep, not "
                             "'%s'\n",
                             qPrintable(parser.value(tabOption)));
                return 4;
            }
            new ScreenshotTaker(&window, &engine, parser.value(screenshot), parser.isSet(runOption),
                                parser.isSet(profileOption) || tab == ShotTab::Profile, tab);
        }
        window.show();
        // After a run the picture should show the timing and whether the output is right; after
        // a profile, the Profile tab gets the room.
        if (scripted && parser.isSet(runOption) && !parser.isSet(profileOption))
            window.setVerificationPinned(true);

        const QString path = parser.positionalArguments().value(0);
        kernelpad::openAtStart(window, &engine, path, scripted, parser.isSet(runOption));
        if (scripted && path.isEmpty())
            window.compile();
        if (!scripted && parser.isSet(runOption)) {
            QObject::connect(window.workbench(), &kernelpad::Workbench::compileShown, &window,
                             [&window] {
                                 static bool once = false;
                                 if (!once && window.workbench()->runBlockedReason().isEmpty()) {
                                     once = true;
                                     window.run();
                                 }
                             });
        }
        // Ctrl+C, a logout or `kill`: quit without asking; unsaved edits go to the recovery
        // file, which the next start offers (ui/ProjectDocument.h).
        const kernelpad::QuitSignals quitSignals(
            [&window](int signal) { kernelpad::quitKeepingEdits(window.document(), signal); });
        code = QApplication::exec();
    } // the window and the Engine end here: runners told to exit, compiles abandoned
    // An abandoned compile may still be inside NVRTC; nothing the user sees or saved waits for
    // it any more, so the process ends now rather than when NVRTC returns
    // (core/compile/CompileWatchdog.h).
    return kernelpad::exitCodeAfterCompiles(code, std::chrono::milliseconds(0));
}
