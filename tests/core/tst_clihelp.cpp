// kernelpad-cli's conventions: every command `kernelpad-cli --help` lists answers --help and -h
// with its own usage and exit 0, and refuses an option it does not take with exit 4, naming the
// option and every option it does take (those its usage shows). Runs the built CLI.

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

namespace tst_clihelp {

namespace {

struct CliRun {
    int exitCode = -1;
    QString out;
    QString err;
};

constexpr int kCliTimeoutMs = 60000;

CliRun runCli(const QStringList& args) {
    QProcess process;
    process.start(QStringLiteral(KERNELPAD_CLI_PATH), args);
    CliRun run;
    if (!process.waitForFinished(kCliTimeoutMs))
        return run;
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

/// The commands the overview lists: the first word of each line of its "Commands:" block.
QStringList listedCommands(const QString& overview) {
    QStringList commands;
    bool inList = false;
    for (const QString& line : overview.split(QLatin1Char('\n'))) {
        if (line == QLatin1String("Commands:")) {
            inList = true;
            continue;
        }
        if (!inList)
            continue;
        if (line.trimmed().isEmpty())
            break;
        commands << line.trimmed().section(QLatin1Char(' '), 0, 0);
    }
    return commands;
}

/// The options the usage's synopsis (its lines up to the first blank one) names.
QSet<QString> synopsisOptions(const QString& usage) {
    QSet<QString> options;
    const QString synopsis = usage.section(QStringLiteral("\n\n"), 0, 0);
    static const QRegularExpression option(QStringLiteral("(?<![\\w-])(--?[a-z][a-z-]*)"));
    for (auto it = option.globalMatch(synopsis); it.hasNext();)
        options.insert(it.next().captured(1));
    return options;
}

} // namespace

class TestCliHelp : public QObject {
    Q_OBJECT
private slots:
    void overviewListsTheCommands();
    void eachCommandAnswersHelp_data();
    void eachCommandAnswersHelp();
    void unknownCommandIsRefused();
};

void TestCliHelp::overviewListsTheCommands() {
    const CliRun help = runCli({QStringLiteral("--help")});
    QCOMPARE(help.exitCode, 0);
    QVERIFY2(help.out.startsWith(QLatin1String("Usage: kernelpad-cli COMMAND")),
             qPrintable(help.out));
    const QStringList commands = listedCommands(help.out);
    for (const char* expected :
         {"init", "compile", "run", "profile", "sweep", "devices", "bench-launch", "serve"})
        QVERIFY2(commands.contains(QLatin1String(expected)), qPrintable(commands.join(' ')));
}

void TestCliHelp::eachCommandAnswersHelp_data() {
    QTest::addColumn<QString>("command");
    const CliRun help = runCli({QStringLiteral("--help")});
    const QStringList commands = listedCommands(help.out);
    QVERIFY2(!commands.isEmpty(), qPrintable(help.out + help.err));
    for (const QString& command : commands)
        QTest::newRow(qPrintable(command)) << command;
}

void TestCliHelp::eachCommandAnswersHelp() {
    QFETCH(QString, command);
    const QString usageLine = QStringLiteral("Usage: kernelpad-cli %1").arg(command);
    QString usage;
    for (const QString& flag : {QStringLiteral("--help"), QStringLiteral("-h")}) {
        const CliRun help = runCli({command, flag});
        QVERIFY2(help.exitCode == 0, qPrintable(flag + QLatin1Char(' ') + help.err));
        QVERIFY2(help.out.startsWith(usageLine), qPrintable(help.out));
        usage = help.out;
    }
    // `kernelpad-cli help COMMAND` says the same.
    QCOMPARE(runCli({QStringLiteral("help"), command}).out, usage);

    const CliRun bogus = runCli({command, QStringLiteral("--bogus")});
    QVERIFY2(bogus.exitCode != 0, qPrintable(bogus.out));
    QVERIFY2(bogus.err.contains(QLatin1String("unknown option --bogus")), qPrintable(bogus.err));
    QVERIFY2(bogus.err.contains(QLatin1String("valid options:")), qPrintable(bogus.err));
    // Every option the synopsis shows is named as valid (and --help is always among them).
    const QString valid = bogus.err.section(QStringLiteral("valid options:"), 1);
    const QSet<QString> shown = synopsisOptions(usage) << QStringLiteral("--help");
    for (const QString& option : shown) {
        const QRegularExpression named(
            QStringLiteral("(?<![\\w-])%1(?![\\w-])").arg(QRegularExpression::escape(option)));
        QVERIFY2(valid.contains(named), qPrintable(option + QStringLiteral(" not in: ") + valid));
    }
}

void TestCliHelp::unknownCommandIsRefused() {
    const CliRun run = runCli({QStringLiteral("rnu"), QStringLiteral("--help")});
    QCOMPARE(run.exitCode, 4);
    QVERIFY2(run.err.contains(QLatin1String("unknown command 'rnu'")), qPrintable(run.err));
}

KERNELPAD_TEST_GUILESS_MAIN(TestCliHelp)
} // namespace tst_clihelp
#include "tst_clihelp.moc"
