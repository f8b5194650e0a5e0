// MainWindow: the docks (kernel and compile options, arguments, launch) and how the window's
// width is shared between them and the editor; saving and restoring the layout.

#include "ui/windows/MainWindow.h"

#include "ui/ProjectDocument.h"
#include "ui/views/SweepView.h"
#include "ui/widgets/ArgumentTableView.h"
#include "ui/widgets/CompileOptionsPanel.h"
#include "ui/widgets/LaunchPanel.h"
#include "ui/widgets/PipelinePanel.h"
#include "ui/windows/FormScrollArea.h"

#include <QAction>
#include <QComboBox>
#include <QDataStream>
#include <QDockWidget>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMouseEvent>
#include <QResizeEvent>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QVBoxLayout>

#include <algorithm>
#include <optional>

namespace kernelpad {

namespace {
const char kGeometryKey[] = "window/geometry";
const char kStateKey[] = "window/state";
const char kDockShareKey[] = "window/dockShare";
// Bump when the dock layout changes so stale saved states are not restored.
// 2: the dock column keeps a share of the width and is never narrower than its forms.
constexpr int kLayoutVersion = 2;
// The dock column's share of the window's width. Half gives the arguments' columns, the
// launch panel's x/y/z and the compile flags their full width at 1280x800 with room to
// spare; the editor keeps the other half. Kept as the user drags the divider.
constexpr double kDefaultDockShare = 0.5;
constexpr double kMinDockShare = 0.15;
constexpr double kMaxDockShare = 0.85;

// What a window manager adds above a window (title bar), kept free of the screen's height.
constexpr int kTitleBarAllowancePx = 32;

/// The frame size stored by QWidget::saveGeometry() (its format: magic, major and minor
/// version, then the frame rectangle); nothing when `geometry` is not such a record.
std::optional<QSize> savedFrameSize(const QByteArray& geometry) {
    constexpr quint32 kGeometryMagic = 0x1D9D0CB;
    QDataStream stream(geometry);
    stream.setVersion(QDataStream::Qt_4_0);
    quint32 magic = 0;
    quint16 major = 0;
    quint16 minor = 0;
    QRect frame;
    stream >> magic >> major >> minor >> frame;
    if (stream.status() != QDataStream::Ok || magic != kGeometryMagic || !frame.isValid())
        return std::nullopt;
    return frame.size();
}

} // namespace

void MainWindow::createDocks() {
    // Kernel selector and compile options.
    auto* kernelPane = new QWidget(this);
    m_kernelSelector = new QComboBox(kernelPane);
    m_kernelSelector->setObjectName(QStringLiteral("kernelSelector"));
    m_kernelSelector->setEditable(true);
    m_kernelSelector->setInsertPolicy(QComboBox::NoInsert);
    m_kernelSelector->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_kernelSelector->setMinimumContentsLength(18);
    m_kernelSelector->setToolTip(
        tr("The kernel to run: pick one of the compiled entries, or type a name expression "
           "for a template instance, e.g. vector_add<float>"));
    m_options = new CompileOptionsPanel(kernelPane);
    auto* kernelRow = new QHBoxLayout;
    kernelRow->addWidget(new QLabel(tr("Kernel:"), kernelPane));
    kernelRow->addWidget(m_kernelSelector, 1);
    auto* kernelLayout = new QVBoxLayout(kernelPane);
    kernelLayout->setContentsMargins(6, 4, 6, 4);
    kernelLayout->addLayout(kernelRow);
    kernelLayout->addWidget(m_options);
    kernelLayout->addStretch(1);

    m_options->setObjectName(QStringLiteral("compileOptions"));
    m_arguments = new ArgumentTableView(this);
    m_arguments->setObjectName(QStringLiteral("arguments"));
    m_launch = new LaunchPanel(this);
    m_launch->setObjectName(QStringLiteral("launchPanel"));

    auto makeDock = [this](const QString& title, const QString& name, QWidget* content,
                           bool scroll) {
        auto* dock = new QDockWidget(title, this);
        dock->setObjectName(name);
        dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                          QDockWidget::DockWidgetClosable);
        if (scroll) {
            // Forms keep their natural height and scroll when the dock is short; never
            // sideways: the dock is at least as wide as the form.
            auto* area = new FormScrollArea(content, dock);
            dock->setWidget(area);
            connect(m_document, &ProjectDocument::projectReplaced, area,
                    &FormScrollArea::scrollToTop);
        } else {
            dock->setWidget(content);
        }
        addDockWidget(Qt::RightDockWidgetArea, dock);
        return dock;
    };
    QDockWidget* kernelDock =
        makeDock(tr("Kernel & Compile Options"), QStringLiteral("kernelDock"), kernelPane, true);
    QDockWidget* argumentsDock =
        makeDock(tr("Arguments"), QStringLiteral("argumentsDock"), m_arguments, false);
    QDockWidget* launchDock = makeDock(tr("Launch"), QStringLiteral("launchDock"), m_launch, true);
    splitDockWidget(kernelDock, argumentsDock, Qt::Vertical);
    splitDockWidget(argumentsDock, launchDock, Qt::Vertical);
    auto* pipeline = new PipelinePanel(this);
    pipeline->setObjectName(QStringLiteral("pipelinePanel"));
    QDockWidget* pipelineDock =
        makeDock(tr("Pipeline"), QStringLiteral("pipelineDock"), pipeline, true);
    tabifyDockWidget(launchDock, pipelineDock);
    // Parameter sweeps: beside the launch settings they change. A view (it runs sweeps and
    // shows their results), made with the window: the sweep section is edited there.
    auto* sweepDock = static_cast<QDockWidget*>(registerView(
        QStringLiteral("sweep"), tr("Sweep"), ViewPlace::RightDock,
        [](const ViewContext& context) { return new SweepView(context); }, ViewCreation::AtOnce));
    tabifyDockWidget(pipelineDock, sweepDock);
    launchDock->raise();
    applyDefaultDockSizes();

    m_viewMenu = new QMenu(tr("&View"), this);
    for (QDockWidget* dock : {kernelDock, argumentsDock, launchDock, pipelineDock, sweepDock}) {
        // The menu would read "Kernel & Compile" as a mnemonic on " C".
        dock->toggleViewAction()->setText(
            dock->windowTitle().replace(QLatin1Char('&'), QStringLiteral("&&")));
        m_viewMenu->addAction(dock->toggleViewAction());
    }
}

void MainWindow::applyDefaultDockSizes() {
    m_dockShare = kDefaultDockShare;
    auto* kernelDock = findChild<QDockWidget*>(QStringLiteral("kernelDock"));
    auto* argumentsDock = findChild<QDockWidget*>(QStringLiteral("argumentsDock"));
    auto* launchDock = findChild<QDockWidget*>(QStringLiteral("launchDock"));
    if (!kernelDock || !argumentsDock || !launchDock)
        return;
    fitDockColumn();
    // Heights in this ratio (Qt scales them to the window): at 1280x800 the compile options,
    // the default project's five arguments and the launch settings all show at once; the
    // timing settings below them scroll.
    resizeDocks({kernelDock, argumentsDock, launchDock}, {300, 200, 240}, Qt::Vertical);
}

void MainWindow::restoreLayout() {
    m_defaultState = saveState(kLayoutVersion);
    fitToScreen();
    QSettings settings;
    if (settings.value(QStringLiteral("window/layoutVersion")).toInt() != kLayoutVersion)
        return;
    const QByteArray geometry = settings.value(QLatin1String(kGeometryKey)).toByteArray();
    // Qt would shrink a window saved larger than this screen but keep its docks' sizes, which
    // then no longer fit: such a layout (another screen's, or an oversized one) is dropped.
    const std::optional<QSize> saved = savedFrameSize(geometry);
    const QRect available = screenRect();
    if (!saved || saved->width() > available.width() || saved->height() > available.height())
        return;
    m_dockShare =
        std::clamp(settings.value(QLatin1String(kDockShareKey), kDefaultDockShare).toDouble(),
                   kMinDockShare, kMaxDockShare);
    restoreGeometry(geometry);
    restoreState(settings.value(QLatin1String(kStateKey)).toByteArray(), kLayoutVersion);
}

QRect MainWindow::screenRect() const {
    const QScreen* s = screen() ? screen() : QGuiApplication::primaryScreen();
    return s ? s->availableGeometry() : QRect();
}

void MainWindow::fitToScreen() {
    const QRect available = screenRect();
    if (available.isEmpty())
        return;
    // The whole free area of the screen, less the title bar the window manager adds: on a
    // 1280x800 laptop that is all of it, and a larger screen can always be shared by hand.
    setGeometry(available.adjusted(0, kTitleBarAllowancePx, 0, 0));
}

void MainWindow::resetLayout() {
    restoreState(m_defaultState, kLayoutVersion);
    for (QDockWidget* dock : findChildren<QDockWidget*>()) {
        // Docks added after the default state was taken (the lesson pane) are not in it.
        if (dock->isFloating())
            dock->setFloating(false);
        if (dock->toggleViewAction()->isEnabled()) // the lesson pane only beside a lesson
            dock->show();
    }
    applyDefaultDockSizes();
}

void MainWindow::saveLayout() {
    QSettings settings;
    settings.setValue(QStringLiteral("window/layoutVersion"), kLayoutVersion);
    settings.setValue(QLatin1String(kGeometryKey), saveGeometry());
    // Behind the welcome page the docks are hidden: keep the layout the project had.
    if (welcomeShown())
        restoreState(m_stateBehindWelcome);
    settings.setValue(QLatin1String(kStateKey), saveState(kLayoutVersion));
    settings.setValue(QLatin1String(kDockShareKey), m_dockShare);
}

void MainWindow::fitDockColumn() {
    auto* kernelDock = findChild<QDockWidget*>(QStringLiteral("kernelDock"));
    if (!kernelDock || kernelDock->isFloating() || width() <= 0)
        return;
    int target = int(m_dockShare * width());
    // The arguments' columns whole where the window has room for them beside the editor and
    // a lesson pane (the table asks for less, so that the window fits a 1280 px screen).
    if (m_arguments) {
        int left = 0;
        for (const QDockWidget* dock : findChildren<QDockWidget*>())
            if (dock->isVisible() && !dock->isFloating() &&
                dockWidgetArea(const_cast<QDockWidget*>(dock)) == Qt::LeftDockWidgetArea)
                left = std::max(left, dock->width());
        const int room = width() - left - centralWidget()->minimumSizeHint().width();
        const QWidget* dock = m_arguments->parentWidget();
        const int frame = dock ? dock->width() - m_arguments->width() : 0;
        target = std::max(target, std::min(m_arguments->columnsWidth() + frame, room));
    }
    // resizeDocks() clamps to the docks' minimum widths, so the forms are never cut.
    resizeDocks({kernelDock}, {target}, Qt::Horizontal);
}

void MainWindow::resizeEvent(QResizeEvent* event) {
    QMainWindow::resizeEvent(event);
    // QMainWindow gives all extra width to the editor; share it with the docks instead.
    if (event->oldSize().width() != width())
        fitDockColumn();
}

bool MainWindow::event(QEvent* event) {
    const bool handled = QMainWindow::event(event);
    // The dock separators belong to the main window itself: a release on it ends a drag,
    // and the new width is the share to keep when the window is resized.
    if (event->type() == QEvent::MouseButtonRelease && width() > 0) {
        auto* kernelDock = findChild<QDockWidget*>(QStringLiteral("kernelDock"));
        if (kernelDock && kernelDock->isVisible() && !kernelDock->isFloating())
            m_dockShare =
                std::clamp(double(kernelDock->width()) / width(), kMinDockShare, kMaxDockShare);
    }
    return handled;
}

} // namespace kernelpad
