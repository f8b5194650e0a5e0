// The welcome page as a newcomer meets it at 1280x800 and 1920x1080: lesson titles read whole
// (wrapped, not elided), a lesson's tooltip is its summary, the thirteen one-lesson topics sit
// in one grid so that the templates below start on the first screen, the examples speak plain
// words, and the compile-only banner names the remedy (a runner over ssh).

#include "../support/WindowParts.h"
#include "core/engine/Engine.h"
#include "core/project/Examples.h"
#include "core/project/Lesson.h"
#include "core/project/LessonWorkspace.h"
#include "ui/ProjectDocument.h"
#include "ui/RecentFiles.h"
#include "ui/widgets/WelcomePage.h"
#include "ui/windows/MainWindow.h"

#include <QApplication>
#include <QLabel>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

#include "../support/TestMain.h"
#include "TestPaths.h"

namespace tst_welcomelayout {

using namespace kernelpad;
using namespace kernelpad::test;

namespace {

const QString kLessons = QStringLiteral("lessons");
const QString kTemplates = QStringLiteral("templates");
constexpr int kDevicesTimeoutMs = 30000;

std::unique_ptr<MainWindow> welcomeWindow(Engine* engine, QSize size) {
    auto window = std::make_unique<MainWindow>(engine);
    window->setPromptsEnabled(false);
    window->setCompileWhileTyping(false);
    window->resize(size);
    window->show();
    if (!QTest::qWaitForWindowExposed(window.get()) || !window->closeProject())
        return nullptr;
    return window;
}

WelcomePage* page(const std::unique_ptr<MainWindow>& window) {
    return part<WelcomePage>(window, "welcomePage");
}

/// Every card of the section at least its minimum width and its full height: the page has
/// laid it out.
bool laidOut(const std::unique_ptr<MainWindow>& window, const QString& section) {
    const QVector<WelcomeCardButton*> cards = page(window)->cards(section);
    if (cards.isEmpty())
        return false;
    for (const WelcomeCardButton* card : cards)
        if (card->width() < card->minimumSizeHint().width() ||
            card->height() < card->sizeHint().height())
            return false;
    return true;
}

/// The two screens of the newcomer's trial.
void addScreens() {
    QTest::addColumn<QSize>("size");
    QTest::newRow("1280x800") << QSize(1280, 800);
    QTest::newRow("1920x1080") << QSize(1920, 1080);
}

} // namespace

class TestWelcomeLayout : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        qputenv("KERNELPAD_LESSONS", KERNELPAD_LESSONS_DIR);
        qputenv("KERNELPAD_TEMPLATES", KERNELPAD_SOURCE_DIR "/resources/templates");
        qputenv("KERNELPAD_EXAMPLES", KERNELPAD_EXAMPLES_DIR);
    }
    void init() {
        RecentFiles().clear(); // a newcomer: the lessons lead
        QDir(ProjectDocument::recoveryDirectory()).removeRecursively();
    }
    void cleanupTestCase() { QDir(lessonWorkspaceDirectory()).removeRecursively(); }

    void lessonTitlesAreReadWhole_data() { addScreens(); }
    void lessonTitlesAreReadWhole() {
        QFETCH(QSize, size);
        Engine engine;
        auto window = welcomeWindow(&engine, size);
        QVERIFY(window);
        QTRY_VERIFY(laidOut(window, kLessons));
        const QVector<WelcomeCardButton*> cards = page(window)->cards(kLessons);
        QCOMPARE(cards.size(), listLessons(QStringLiteral(KERNELPAD_LESSONS_DIR)).size());
        for (const WelcomeCardButton* card : cards) {
            // Lines break at spaces and after hyphens ("Shared-|memory"): compared without them.
            const QString shown = card->titleLines().join(QString()).remove(QLatin1Char(' '));
            QVERIFY2(!shown.contains(QChar(0x2026)), qPrintable(shown));
            QCOMPARE(shown, QString(card->card().title).remove(QLatin1Char(' ')));
            // The subtitle (kind, done mark) keeps at least a line below the title.
            QVERIFY(card->titleLines().size() < 4);
        }
        // No horizontal scrolling for it.
        QCOMPARE(page(window)->horizontalScrollBar()->maximum(), 0);
    }

    void lessonTooltipIsItsSummary() {
        Engine engine;
        auto window = welcomeWindow(&engine, {1280, 800});
        QVERIFY(window);
        const QVector<Lesson> lessons = listLessons(QStringLiteral(KERNELPAD_LESSONS_DIR));
        const QVector<WelcomeCardButton*> cards = page(window)->cards(kLessons);
        QCOMPARE(cards.size(), lessons.size());
        for (int i = 0; i < lessons.size(); ++i) {
            const QString tip = cards.at(i)->toolTip();
            QVERIFY(!lessons.at(i).project.description.isEmpty());
            QCOMPARE(tip, lessons.at(i).project.description);
            QVERIFY2(!tip.contains(QLatin1Char('/')) || !tip.contains(lessons.at(i).directory),
                     qPrintable(tip));
        }
        // Examples: their description, not their path.
        for (const WelcomeCardButton* card : page(window)->cards(QStringLiteral("examples")))
            QCOMPARE(card->toolTip(), card->card().subtitle);
    }

    void oneLessonTopicsShareOneGrid() {
        Engine engine;
        auto window = welcomeWindow(&engine, {1280, 800});
        QVERIFY(window);
        QTRY_VERIFY(laidOut(window, kLessons));
        const QVector<WelcomeCardButton*> cards = page(window)->cards(kLessons);
        // Several cards to a row, not a row (and a heading) per topic.
        int rows = 0;
        int lastY = -1;
        for (const WelcomeCardButton* card : cards) {
            const int y = card->mapTo(page(window)->widget(), QPoint(0, 0)).y();
            if (y != lastY)
                ++rows;
            lastY = y;
        }
        QVERIFY2(rows * 2 <= cards.size(), qPrintable(QString::number(rows)));
        // Each card names its topic instead of a heading above it.
        for (const WelcomeCardButton* card : cards)
            QVERIFY2(card->accessibleDescription().startsWith(card->card().topic),
                     qPrintable(card->accessibleDescription()));
        QStringList headings;
        for (const QLabel* label : page(window)->section(kLessons)->findChildren<QLabel*>())
            headings << label->text();
        QVERIFY2(!headings.contains(QStringLiteral("Memory coalescing")),
                 qPrintable(headings.join(',')));
        // The examples, several to a topic, keep their headings (tst_welcome).
    }

    void templatesStartOnTheFirstScreen_data() { addScreens(); }
    void templatesStartOnTheFirstScreen() {
        QFETCH(QSize, size);
        Engine engine;
        auto window = welcomeWindow(&engine, size);
        QVERIFY(window);
        QCOMPARE(page(window)->sectionOrder().value(0), kLessons);
        QWidget* content = page(window)->widget();
        const auto top = [&] {
            const WelcomeCardButton* first = page(window)->cards(kTemplates).value(0);
            return first ? first->mapTo(content, QPoint(0, 0)).y() : -1;
        };
        // Settled: every card at its size, and the templates below the last lesson.
        const auto settled = [&] {
            const WelcomeCardButton* last = page(window)->cards(kLessons).value(12);
            return laidOut(window, kLessons) && laidOut(window, kTemplates) && last &&
                   top() > last->mapTo(content, QPoint(0, last->height())).y();
        };
        QTRY_VERIFY(settled());
        // The whole first row of templates is on the first screen.
        const int height = page(window)->cards(kTemplates).value(0)->height();
        QVERIFY2(top() + height <= page(window)->viewport()->height(),
                 qPrintable(QStringLiteral("templates at %1 px, the page shows %2 px")
                                .arg(top())
                                .arg(page(window)->viewport()->height())));
    }

    void examplesSpeakPlainWords() {
        for (const ExampleInfo& info : listExamples(QStringLiteral(KERNELPAD_EXAMPLES_DIR))) {
            QVERIFY2(!info.description.contains(QStringLiteral("seed"), Qt::CaseInsensitive),
                     qPrintable(info.path));
        }
    }

    void compileOnlyBannerNamesTheRemedy() {
        Engine engine;
        QSignalSpy devices(&engine, &Engine::devicesChanged);
        auto window = std::make_unique<MainWindow>(&engine);
        window->setPromptsEnabled(false);
        window->show();
        QVERIFY(devices.count() > 0 || devices.wait(kDevicesTimeoutMs));
        if (devices.last().at(1).toString().isEmpty())
            QSKIP("a CUDA driver is present: this test is about compile-only mode");
        auto* banner = part<QWidget>(window, "driverBanner");
        QVERIFY(banner && banner->isVisible());
        QString text;
        for (const QLabel* label : banner->findChildren<QLabel*>())
            text += label->text();
        QVERIFY2(text.contains(QStringLiteral("compile-only")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("ssh")) &&
                     text.contains(QStringLiteral("Preferences ▸ Runners")),
                 qPrintable(text));
    }
};

KERNELPAD_TEST_MAIN(TestWelcomeLayout)
} // namespace tst_welcomelayout
#include "tst_welcomelayout.moc"
