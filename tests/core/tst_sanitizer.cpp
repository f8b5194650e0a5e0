// compute-sanitizer support without a GPU: its reports (logs captured from compute-sanitizer
// 2025.3 on an H100, see tests/data/sanitizer) parsed into diagnostics, merged and mapped to the
// project's source; the not-found message; the JSON of the new RunRequest/RunResult fields;
// the one-off sanitized runner (with a stand-in compute-sanitizer) and `kernelpad-cli run
// --memcheck`.

#include "core/project/Project.h"
#include "core/run/RunTypes.h"
#include "core/runner/Protocol.h"
#include "core/runner/RunnerClient.h"
#include "core/runner/SanitizerLogParser.h"
#include "core/runner/SanitizerRun.h"

#include "../support/TestMain.h"
#include "../support/TestProjects.h"
#include "TestPaths.h"
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

namespace tst_sanitizer {

using namespace kernelpad;

namespace {

QString dataPath(const QString& name) {
    return QStringLiteral(KERNELPAD_TEST_DATA_DIR "/sanitizer/") + name;
}

QString readData(const QString& name) {
    QFile f(dataPath(name));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(f.fileName()));
    return QString::fromUtf8(f.readAll());
}

/// saxpy without its outputs kept: these tests read the tool's findings only.
RunRequest saxpyRequest() {
    RunRequest r = test::saxpyRequest();
    r.keepOutputs = false;
    return r;
}

/// The stand-in compute-sanitizer, copied so that it is executable whatever the checkout did.
QString fakeSanitizer(const QTemporaryDir& dir) {
    const QString path = dir.filePath(QStringLiteral("compute-sanitizer"));
    QFile::copy(dataPath(QStringLiteral("fake-compute-sanitizer.sh")), path);
    QFile::setPermissions(path,
                          QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    return path;
}

SanitizerReport::Dim3 dim3(int x, int y, int z) {
    return {x, y, z};
}

} // namespace

class TestSanitizer : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { qRegisterMetaType<kernelpad::RunResult>(); }

    void parsesRealLogs_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("sourceName");
        QTest::addColumn<int>("reports");
        QTest::addColumn<int>("errorCount");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<QString>("sourceFile");
        QTest::addColumn<int>("line");
        QTest::addColumn<QString>("where"); // "thread|block", empty when none
        QTest::addColumn<int>("count");
        QTest::addColumn<QString>("messagePart");

        QTest::newRow("memcheck out-of-bounds read, merged")
            << "memcheck-oob-read.txt"
            << "kernel.cu" << 1 << 1025 << "Invalid __global__ read of size 4 bytes"
            << "oobread"
            << "kernel.cu" << 9 << "(0,0,0)|(2,0,0)" << 6
            << "address 0x7fa1e0802800 is out of bounds, 2,049 bytes after the nearest allocation "
               "at "
               "0x7fa1e0801000 of size 4,096 bytes";
        QTest::newRow("memcheck out-of-bounds write in a directory")
            << "memcheck-oob-write.txt"
            << "saxpy.cu" << 3 << 4 << "Invalid __global__ write of size 4 bytes"
            << "saxpy"
            << "saxpy.cu" << 7 << "(3,0,0)|(1,0,0)" << 2
            << "Invalid __global__ write of size 4 bytes by thread (3,0,0) in block (1,0,0): "
               "address "
               "0x7f2a4e801000 is out of bounds, 4 bytes after the nearest allocation";
        QTest::newRow("memcheck trap and the API error after it")
            << "memcheck-trap.txt"
            << "kernel.cu" << 2 << 2 << "Trace/breakpoint trap"
            << "trap"
            << "kernel.cu" << 30 << "(5,0,0)|(0,0,0)" << 1
            << "Trace/breakpoint trap by thread (5,0,0) in block (0,0,0)";
        QTest::newRow("memcheck clean run") << "memcheck-clean.txt"
                                            << "saxpy.cu" << 0 << 0 << ""
                                            << ""
                                            << "" << 0 << "" << 0 << "";
        QTest::newRow("initcheck uninitialized read")
            << "initcheck-uninitialized.txt"
            << "kernel.cu" << 1 << 1024 << "Uninitialized __global__ memory read of size 4 bytes"
            << "init"
            << "kernel.cu" << 20 << "(96,0,0)|(0,0,0)" << 4
            << "in block (0,0,0): address 0x7f3798800180 (reported 4 times";
        QTest::newRow("racecheck analysis: one report per pair")
            << "racecheck-analysis.txt"
            << "kernel.cu" << 2 << 1 << "Race reported between Write access and Write access"
            << "race"
            << "kernel.cu" << 14 << "" << 1 << "the write access is at kernel.cu:14 (94 hazards)";
        QTest::newRow("racecheck hazards merged by kind and place")
            << "racecheck-hazards.txt"
            << "kernel.cu" << 2 << 4 << "Potential WAW hazard on __shared__ memory"
            << "race"
            << "kernel.cu" << 14 << "(32,0,0)|(0,0,0)" << 2
            << "the other access is a write by thread (96,0,0) at kernel.cu:14";
    }
    void parsesRealLogs() {
        QFETCH(QString, file);
        QFETCH(QString, sourceName);
        QFETCH(int, reports);
        QFETCH(int, errorCount);
        QFETCH(QString, kind);
        QFETCH(QString, kernel);
        QFETCH(QString, sourceFile);
        QFETCH(int, line);
        QFETCH(QString, where);
        QFETCH(int, count);
        QFETCH(QString, messagePart);

        const SanitizerLog log = SanitizerLogParser::parse(readData(file), sourceName);
        QCOMPARE(log.reports.size(), reports);
        QCOMPARE(log.errorCount, errorCount);
        if (reports == 0)
            return;
        const SanitizerReport& r = log.reports.first();
        QCOMPARE(r.kind, kind);
        QCOMPARE(r.kernel, kernel);
        QCOMPARE(r.file, sourceFile);
        QCOMPARE(r.line, line);
        QCOMPARE(r.count, count);
        if (where.isEmpty()) {
            QVERIFY(!r.thread);
        } else {
            const QStringList parts = where.split(u'|');
            QVERIFY(r.thread && r.block);
            QCOMPARE(QStringLiteral("(%1,%2,%3)")
                         .arg((*r.thread)[0])
                         .arg((*r.thread)[1])
                         .arg((*r.thread)[2]),
                     parts[0]);
            QCOMPARE(QStringLiteral("(%1,%2,%3)")
                         .arg((*r.block)[0])
                         .arg((*r.block)[1])
                         .arg((*r.block)[2]),
                     parts[1]);
        }
        const Diagnostic d = r.diagnostic();
        QCOMPARE(d.file, sourceFile);
        QCOMPARE(d.line, line);
        QCOMPARE(d.severity, Diagnostic::Severity::Error);
        QVERIFY2(d.message.contains(messagePart), qPrintable(d.message));
        QVERIFY2(!d.message.contains(QLatin1String("Host Frame")), qPrintable(d.message));
    }

    // The parser read line by line (as a log arrives) gives what parsing it whole gives.
    void feedingLinesEqualsParsingTheLog() {
        const QString text = readData("memcheck-oob-write.txt");
        SanitizerLogParser parser("saxpy.cu");
        for (const QString& line : text.split('\n'))
            parser.feed(line);
        const SanitizerLog fed = parser.finish();
        const SanitizerLog whole = SanitizerLogParser::parse(text, "saxpy.cu");
        QCOMPARE(fed.errorCount, whole.errorCount);
        QCOMPARE(fed.notPrinted, whole.notPrinted);
        QCOMPARE(fed.reports.size(), whole.reports.size());
        for (int k = 0; k < fed.reports.size(); ++k)
            QVERIFY2(fed.reports[k] == whole.reports[k], qPrintable(fed.reports[k].message()));
        QVERIFY(!whole.reports.isEmpty());
    }

    void apiErrorsHaveNoSourceLine() {
        const SanitizerLog log =
            SanitizerLogParser::parse(readData("memcheck-trap.txt"), "kernel.cu");
        QCOMPARE(log.reports.size(), 2);
        const SanitizerReport& api = log.reports[1];
        QVERIFY2(api.kind.startsWith("Program hit CUDA_ERROR_LAUNCH_FAILED"), qPrintable(api.kind));
        QVERIFY(!api.kind.endsWith('.'));
        QCOMPARE(api.line, 0);
        QVERIFY(api.file.isEmpty());
        QVERIFY(api.kernel.isEmpty());
    }

    void printLimitAndToolMessagesAreKept() {
        const SanitizerLog cut =
            SanitizerLogParser::parse(readData("memcheck-oob-read.txt"), "kernel.cu");
        QCOMPARE(cut.notPrinted, 925);
        const SanitizerLog noTarget = SanitizerLogParser::parse(
            "========= COMPUTE-SANITIZER\n========= Error: Target application "
            "terminated before first instrumented "
            "API call\n========= ERROR SUMMARY: 0 errors\n",
            "kernel.cu");
        QVERIFY(noTarget.reports.isEmpty());
        QCOMPARE(noTarget.toolMessages.size(), 1);
        QVERIFY(noTarget.toolMessages.first().contains("terminated before"));
        // A log cut short (the tool was killed) has reports but no summary.
        const SanitizerLog partial = SanitizerLogParser::parse(
            readData("memcheck-oob-write.txt").section("========= ERROR", 0, 0), "saxpy.cu");
        QCOMPARE(partial.errorCount, -1);
        QCOMPARE(partial.reports.size(), 3);
    }

    void garbageNeverCrashes_data() {
        QTest::addColumn<QString>("text");
        QTest::newRow("empty") << QString();
        QTest::newRow("prefix only") << "=========\n=========";
        QTest::newRow("continuation without header")
            << "=========     by thread (1,2,3) in block (4,5,6)\n";
        QTest::newRow("at without location")
            << "========= Invalid __global__ write\n=========     at \n";
        QTest::newRow("huge numbers") << "========= ERROR SUMMARY: 99999999999999999999 errors\n";
        QTest::newRow("race with nothing after")
            << "========= Error: Race reported between Write access at \n";
    }
    void garbageNeverCrashes() {
        QFETCH(QString, text);
        const SanitizerLog log = SanitizerLogParser::parse(text, "kernel.cu");
        QVERIFY(log.reports.size() <= 1);
    }

    void mergesIdenticalReports_data() {
        QTest::addColumn<int>("secondLine");
        QTest::addColumn<QString>("secondKind");
        QTest::addColumn<int>("expectedReports");
        QTest::newRow("same line and kind merge")
            << 12 << "Invalid __global__ write of size 4 bytes" << 1;
        QTest::newRow("other line stays") << 13 << "Invalid __global__ write of size 4 bytes" << 2;
        QTest::newRow("other kind stays") << 12 << "Invalid __global__ read of size 4 bytes" << 2;
    }
    void mergesIdenticalReports() {
        QFETCH(int, secondLine);
        QFETCH(QString, secondKind);
        QFETCH(int, expectedReports);
        SanitizerReport a;
        a.kind = "Invalid __global__ write of size 4 bytes";
        a.kernel = "saxpy";
        a.file = "saxpy.cu";
        a.line = 12;
        a.thread = dim3(3, 0, 0);
        a.block = dim3(1, 0, 0);
        SanitizerReport b = a;
        b.kind = secondKind;
        b.line = secondLine;
        b.thread = dim3(4, 0, 0);
        const QVector<SanitizerReport> merged = mergeSanitizerReports({a, b, a});
        QCOMPARE(merged.size(), expectedReports);
        QCOMPARE(merged.first().thread, std::optional(dim3(3, 0, 0))); // the first keeps its thread
        QCOMPARE(merged.first().count, expectedReports == 1 ? 3 : 2);
        QVERIFY(merged.first().message().contains(
            QStringLiteral("reported %1 times").arg(merged.first().count)));
    }

    void mapsFilesToTheProjectSource_data() {
        QTest::addColumn<QString>("reported");
        QTest::addColumn<QString>("sourceName");
        QTest::addColumn<QString>("expected");
        QTest::newRow("same name") << "saxpy.cu"
                                   << "saxpy.cu"
                                   << "saxpy.cu";
        QTest::newRow("with a directory") << "/tmp/build/saxpy.cu"
                                          << "saxpy.cu"
                                          << "saxpy.cu";
        QTest::newRow("project name with a directory") << "saxpy.cu"
                                                       << "src/saxpy.cu"
                                                       << "src/saxpy.cu";
        QTest::newRow("a header keeps its name") << "include/halo.cuh"
                                                 << "saxpy.cu"
                                                 << "include/halo.cuh";
        QTest::newRow("no file") << ""
                                 << "saxpy.cu"
                                 << "";
    }
    void mapsFilesToTheProjectSource() {
        QFETCH(QString, reported);
        QFETCH(QString, sourceName);
        QFETCH(QString, expected);
        QCOMPARE(mapSanitizerFile(reported, sourceName), expected);
    }

    void notFoundSaysWhereItLooked() {
        QTemporaryDir emptyBin;
        const QByteArray oldPath = qgetenv("PATH");
        const QByteArray oldOverride = qgetenv("KERNELPAD_COMPUTE_SANITIZER");
        qputenv("PATH", emptyBin.path().toUtf8());
        qputenv("KERNELPAD_COMPUTE_SANITIZER", "/nonexistent/compute-sanitizer");
        QStringList searched;
        const QString found = findComputeSanitizer(&searched);
        RunnerClient client;
        QSignalSpy finished(&client, &RunnerClient::runFinished);
        RunRequest request = saxpyRequest();
        request.sanitizer = SanitizerTool::Memcheck;
        if (found.isEmpty())
            client.run(4, request);
        qputenv("PATH", oldPath);
        qputenv("KERNELPAD_COMPUTE_SANITIZER", oldOverride);
        if (!found.isEmpty())
            QSKIP(qPrintable("compute-sanitizer is installed here: " + found));

        QVERIFY(searched.contains("/nonexistent/compute-sanitizer"));
        QVERIFY(std::any_of(searched.cbegin(), searched.cend(), [](const QString& s) {
            return s.endsWith("/compute-sanitizer/compute-sanitizer");
        }));
        // Every PATH entry is named (findToolkitProgram), not PATH as a whole.
        QVERIFY2(searched.contains(QDir::cleanPath(emptyBin.path()) + "/compute-sanitizer"),
                 qPrintable(searched.join(", ")));
        const QString message = sanitizerNotFoundMessage(searched);
        QVERIFY2(message.contains("compute-sanitizer was not found") &&
                     message.contains("/bin/compute-sanitizer"),
                 qPrintable(message));
        // Through the client: a BadInput result with the same message, no runner started.
        QCOMPARE(finished.count(), 1);
        const RunResult r = finished.first().at(1).value<RunResult>();
        QCOMPARE(r.status, RunStatus::BadInput);
        QVERIFY2(r.error.contains("looked in") &&
                     r.error.contains("/nonexistent/compute-sanitizer"),
                 qPrintable(r.error));
        QCOMPARE(client.startCount(), 0);
    }

    void runRequestRoundTrip_data() {
        QTest::addColumn<int>("tool");
        QTest::newRow("none") << int(SanitizerTool::None);
        QTest::newRow("memcheck") << int(SanitizerTool::Memcheck);
        QTest::newRow("racecheck") << int(SanitizerTool::Racecheck);
        QTest::newRow("initcheck") << int(SanitizerTool::Initcheck);
    }
    void runRequestRoundTrip() {
        QFETCH(int, tool);
        RunRequest request = saxpyRequest();
        request.sanitizer = SanitizerTool(tool);
        const QJsonObject json = request.toJson();
        QCOMPARE(json.contains("sanitizer"), request.sanitizer != SanitizerTool::None);
        QString error;
        const std::optional<RunRequest> back = RunRequest::fromJson(json, &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(int(back->sanitizer), tool);
    }

    void runRequestRejectsBadTools_data() {
        QTest::addColumn<QJsonValue>("value");
        QTest::newRow("unknown tool") << QJsonValue("valgrind");
        QTest::newRow("number") << QJsonValue(3);
        QTest::newRow("object") << QJsonValue(QJsonObject{});
    }
    void runRequestRejectsBadTools() {
        QFETCH(QJsonValue, value);
        QJsonObject json = saxpyRequest().toJson();
        json.insert("sanitizer", value);
        QString error;
        QVERIFY(!RunRequest::fromJson(json, &error));
        QVERIFY2(error.startsWith("sanitizer:") && error.contains("memcheck"), qPrintable(error));
    }

    void runResultRoundTrip() {
        RunResult result;
        result.status = RunStatus::CudaError;
        result.error = "compute-sanitizer memcheck reported 2 error(s)";
        result.sanitizerTool = SanitizerTool::Memcheck;
        result.sanitizer =
            SanitizerLogParser::parse(readData("memcheck-oob-write.txt"), "saxpy.cu").reports;
        result.sanitizerErrors = 4;
        result.sanitizerNote = "Ran once under compute-sanitizer memcheck";
        QVERIFY(result.sanitizer.size() == 3);

        // Through text, as the runner protocol carries it.
        const QJsonObject json =
            QJsonDocument::fromJson(QJsonDocument(result.toJson()).toJson()).object();
        QCOMPARE(json.value("sanitizer").toArray().size(), 3);
        QVERIFY(json.value("sanitizer")
                    .toArray()
                    .first()
                    .toObject()
                    .value("message")
                    .toString()
                    .contains("block (1,0,0)"));
        QString error;
        const std::optional<RunResult> back = RunResult::fromJson(json, &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->sanitizerTool, SanitizerTool::Memcheck);
        QCOMPARE(back->sanitizerErrors, 4);
        QCOMPARE(back->sanitizerNote, result.sanitizerNote);
        QCOMPARE(back->error, result.error);
        QCOMPARE(back->sanitizer.size(), result.sanitizer.size());
        for (int k = 0; k < back->sanitizer.size(); ++k)
            QVERIFY2(back->sanitizer[k] == result.sanitizer[k],
                     qPrintable(back->sanitizer[k].message()));
        QCOMPARE(back->sanitizerErrorCount(), 4);

        // A plain run keeps its JSON as before: no sanitizer keys.
        QVERIFY(!RunResult().toJson().contains("sanitizer"));
    }

    // Every field goes through core/io/JsonFields: the message names the field's path and
    // says what was expected and what came.
    void reportFieldMessages_data() {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QJsonValue>("value");
        QTest::addColumn<QString>("message");
        QTest::newRow("no kind") << "kind" << QJsonValue(QJsonValue::Undefined) << "kind: missing";
        QTest::newRow("kind a number")
            << "kind" << QJsonValue(3) << "kind: expected a string, got a number";
        QTest::newRow("empty kind") << "kind" << QJsonValue("") << "kind: empty";
        QTest::newRow("severity a boolean")
            << "severity" << QJsonValue(true) << "severity: expected a string, got a boolean";
        QTest::newRow("unknown severity")
            << "severity" << QJsonValue("fatal")
            << "severity: expected \"error\" or \"warning\", got 'fatal'";
        QTest::newRow("kernel an array")
            << "kernel" << QJsonValue(QJsonArray{}) << "kernel: expected a string, got an array";
        QTest::newRow("file a number")
            << "file" << QJsonValue(12) << "file: expected a string, got a number";
        QTest::newRow("address an object") << "address" << QJsonValue(QJsonObject{})
                                           << "address: expected a string, got an object";
        QTest::newRow("detail a boolean")
            << "detail" << QJsonValue(false) << "detail: expected a string, got a boolean";
        QTest::newRow("relatedFile a number")
            << "relatedFile" << QJsonValue(1) << "relatedFile: expected a string, got a number";
        QTest::newRow("fractional line")
            << "line" << QJsonValue(2.5) << "line: expected a whole number, got 2.5";
        QTest::newRow("negative line") << "line" << QJsonValue(-2) << "line: must be >= 0 (got -2)";
        QTest::newRow("relatedLine a string")
            << "relatedLine" << QJsonValue("7")
            << "relatedLine: expected a whole number, got a string";
        QTest::newRow("zero count") << "count" << QJsonValue(0) << "count: must be >= 1 (got 0)";
        QTest::newRow("count null") << "count" << QJsonValue(QJsonValue::Null)
                                    << "count: expected a whole number, got null";
        QTest::newRow("thread of two") << "thread" << QJsonValue(QJsonArray{1, 2})
                                       << "thread: expected [x, y, z] or null, got 2 elements";
        QTest::newRow("thread a string")
            << "thread" << QJsonValue("0,0,0") << "thread: expected an array, got a string";
        QTest::newRow("negative block index")
            << "block" << QJsonValue(QJsonArray{0, -1, 0}) << "block[1]: must be >= 0 (got -1)";
        QTest::newRow("block index a string") << "block" << QJsonValue(QJsonArray{0, 0, "2"})
                                              << "block[2]: expected a whole number, got a string";
    }
    void reportFieldMessages() {
        QFETCH(QString, field);
        QFETCH(QJsonValue, value);
        QFETCH(QString, message);
        SanitizerReport report;
        report.kind = "Invalid __global__ write of size 4 bytes";
        QJsonObject bad = report.toJson();
        if (value.isUndefined())
            bad.remove(field);
        else
            bad.insert(field, value);
        QString error;
        QVERIFY(!SanitizerReport::fromJson(bad, &error));
        QVERIFY2(error.startsWith(message), qPrintable(error));
    }

    void nullFieldsReadAsUnknown() {
        SanitizerReport report;
        report.kind = "Invalid __global__ write of size 4 bytes";
        report.file = "saxpy.cu";
        report.thread = SanitizerReport::Dim3{1, 2, 3};
        QJsonObject json = report.toJson();
        json.insert("file", QJsonValue::Null);
        json.insert("thread", QJsonValue::Null);
        json.remove("block");
        QString error;
        const std::optional<SanitizerReport> back = SanitizerReport::fromJson(json, &error);
        QVERIFY2(back, qPrintable(error));
        QVERIFY(back->file.isEmpty());
        QVERIFY(!back->thread);
        QVERIFY(!back->block);
        QCOMPARE(back->kind, report.kind);
    }

    void runResultNamesABadReportField_data() {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QJsonValue>("value");
        QTest::newRow("negative line") << "line" << QJsonValue(-2);
        QTest::newRow("zero count") << "count" << QJsonValue(0);
        QTest::newRow("thread of two") << "thread" << QJsonValue(QJsonArray{1, 2});
        QTest::newRow("unknown severity") << "severity" << QJsonValue("fatal");
        QTest::newRow("empty kind") << "kind" << QJsonValue("");
    }
    void runResultNamesABadReportField() {
        QFETCH(QString, field);
        QFETCH(QJsonValue, value);
        SanitizerReport report;
        report.kind = "Invalid __global__ write of size 4 bytes";
        QJsonObject bad = report.toJson();
        bad.insert(field, value);
        QString error;
        QVERIFY(!SanitizerReport::fromJson(bad, &error));
        QVERIFY2(error.startsWith(field + ':'), qPrintable(error));
        RunResult result;
        result.sanitizerTool = SanitizerTool::Memcheck;
        QJsonObject json = result.toJson();
        json.insert("sanitizer", QJsonArray{report.toJson(), bad});
        // A report the runner sent but this side cannot read makes the result unreadable: the
        // run ends with a protocol error naming the field, never without the report.
        QVERIFY(!RunResult::fromJson(json, &error));
        QVERIFY2(error.startsWith(QStringLiteral("sanitizer[1].%1:").arg(field)),
                 qPrintable(error));
    }

    void sanitizedRequestRunsOnceWithLineInfo() {
        RunRequest request = saxpyRequest();
        request.sanitizer = SanitizerTool::Memcheck;
        request.project.timing.mode = TimingSpec::Mode::Cold;
        request.repetitions = 50;
        const RunRequest s = SanitizerRun::sanitizedRequest(request);
        QCOMPARE(s.project.options.lineInfo, std::optional<bool>(true));
        QCOMPARE(s.repetitions, std::optional<int>(1));
        QCOMPARE(s.project.timing.repetitions, 1);
        QCOMPARE(s.project.timing.warmupLaunches, 0);
        QVERIFY(!s.project.timing.adaptive);
        QCOMPARE(s.project.timing.mode, TimingSpec::Mode::Hot);
        QVERIFY(request.project.timing.blockingKernel);
        QVERIFY(!s.project.timing.blockingKernel); // launches may be serialised under it
        QCOMPARE(s.project.timing.timeLimitMs,
                 request.project.timing.timeLimitMs * kSanitizerTimeScale);
        QVERIFY(s.project.timing.validate().isEmpty());
        QCOMPARE(s.project.source, request.project.source);
    }

    void argumentsKeepTheProtocolClean_data() {
        QTest::addColumn<int>("tool");
        QTest::addColumn<bool>("padded");
        QTest::newRow("memcheck pads allocations") << int(SanitizerTool::Memcheck) << true;
        QTest::newRow("racecheck") << int(SanitizerTool::Racecheck) << false;
        QTest::newRow("initcheck") << int(SanitizerTool::Initcheck) << false;
    }
    void argumentsKeepTheProtocolClean() {
        QFETCH(int, tool);
        QFETCH(bool, padded);
        const QStringList args = sanitizerArguments(SanitizerTool(tool), "/tmp/x/report.txt");
        QCOMPARE(args.at(args.indexOf("--tool") + 1), sanitizerToolName(SanitizerTool(tool)));
        QCOMPARE(args.at(args.indexOf("--log-file") + 1), QStringLiteral("/tmp/x/report.txt"));
        QCOMPARE(args.at(args.indexOf("--error-exitcode") + 1), QStringLiteral("0"));
        QCOMPARE(args.at(args.indexOf("--print-limit") + 1), QString::number(kSanitizerPrintLimit));
        QCOMPARE(args.contains("--padding"), padded);
    }

    // The whole path with a stand-in compute-sanitizer around the real runner: the reports it
    // "writes" reach the result, the temp folder goes, the warm runner is never started.
    void sanitizedRunThroughAOneOffRunner_data() {
        QTest::addColumn<int>("tool");
        QTest::addColumn<QString>("report");
        QTest::addColumn<int>("reports");
        QTest::newRow("memcheck finds an out-of-bounds write")
            << int(SanitizerTool::Memcheck) << "memcheck-oob-write.txt" << 3;
        QTest::newRow("racecheck clean")
            << int(SanitizerTool::Racecheck) << "memcheck-clean.txt" << 0;
    }
    void sanitizedRunThroughAOneOffRunner() {
        QFETCH(int, tool);
        QFETCH(QString, report);
        QFETCH(int, reports);
        QTemporaryDir dir;
        const QString argsFile = dir.filePath("args.txt");
        qputenv("KERNELPAD_FAKE_SANITIZER_REPORT", dataPath(report).toUtf8());
        qputenv("KERNELPAD_FAKE_SANITIZER_ARGS", argsFile.toUtf8());
        RunnerClient client;
        client.setCommand(QStringLiteral(KERNELPAD_CLI_PATH), {QStringLiteral("serve")});
        client.setSanitizerPath(fakeSanitizer(dir));
        QSignalSpy finished(&client, &RunnerClient::runFinished);
        RunRequest request = saxpyRequest();
        request.sanitizer = SanitizerTool(tool);
        client.run(11, request);
        QVERIFY(client.isRunning());
        QVERIFY(finished.wait(60000));
        qunsetenv("KERNELPAD_FAKE_SANITIZER_REPORT");
        qunsetenv("KERNELPAD_FAKE_SANITIZER_ARGS");
        QCOMPARE(finished.first().at(0).value<quint64>(), quint64(11));
        const RunResult r = finished.first().at(1).value<RunResult>();

        QCOMPARE(r.sanitizerTool, SanitizerTool(tool));
        QCOMPARE(r.sanitizer.size(), reports);
        QVERIFY2(r.compile.ok, qPrintable(r.error));
        QVERIFY2(r.compile.flags.contains("-lineinfo") ||
                     r.compile.flags.contains("--generate-line-info"),
                 qPrintable(r.compile.flags.join(' ')));
        QVERIFY2(r.sanitizerNote.contains("10-100x slower"), qPrintable(r.sanitizerNote));
        if (reports > 0) {
            QCOMPARE(r.sanitizer.first().file, QStringLiteral("saxpy.cu"));
            QCOMPARE(r.sanitizer.first().line, 7);
            QVERIFY(r.sanitizerErrorCount() > 0);
            // With a driver the run "succeeded", so the reports make it a CUDA error; without
            // one the driver's own message stays.
            if (r.status == RunStatus::DriverUnavailable)
                QVERIFY2(r.error.contains("compile-only"), qPrintable(r.error));
            else
                QVERIFY2(r.status == RunStatus::CudaError && r.error.contains("saxpy.cu:7"),
                         qPrintable(r.error));
        } else {
            QVERIFY2(r.status == RunStatus::Ok || r.status == RunStatus::DriverUnavailable,
                     qPrintable(r.error));
        }
        QVERIFY(!client.isRunning());
        QCOMPARE(client.startCount(), 0); // the warm runner was left alone (never started)

        QFile args(argsFile);
        QVERIFY(args.open(QIODevice::ReadOnly));
        const QStringList argv = QString::fromUtf8(args.readAll()).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(argv.at(argv.indexOf("--tool") + 1), sanitizerToolName(SanitizerTool(tool)));
        const QString log = argv.at(argv.indexOf("--log-file") + 1);
        QVERIFY2(log.contains("kernelpad-sanitizer-"), qPrintable(log));
        QVERIFY2(!QFileInfo::exists(QFileInfo(log).absolutePath()),
                 "the private report folder must be removed");
        QCOMPARE(argv.mid(argv.size() - 2), (QStringList{KERNELPAD_CLI_PATH, "serve"}));
    }

    // A sanitized run this side stops (its time limit, a cancel) kills compute-sanitizer with
    // the runner, so the tool's report is cut short: the note says why, as a profile's
    // outcome does (both go through ToolWrappedRun). The sanitized run once ignored the kill.
    void stoppedRunSaysTheToolWasStopped_data() {
        QTest::addColumn<bool>("cancel");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("why");
        QTest::newRow("time limit") << false << int(RunStatus::Timeout) << "time limit";
        QTest::newRow("cancelled") << true << int(RunStatus::Cancelled) << "cancelled";
    }
    void stoppedRunSaysTheToolWasStopped() {
        QFETCH(bool, cancel);
        QFETCH(int, status);
        QFETCH(QString, why);
        QTemporaryDir dir;
        // A runner that reports its timed launches and never returns from them.
        const QString hangs =
            QStringLiteral("d=$(mktemp -d /tmp/kernelpad-runner-XXXXXX); "
                           "printf '{\"type\":\"hello\",\"version\":%1,\"pid\":1,\"outputDir\":"
                           "\"%s\"}\\n' \"$d\"; read line; id=${line#'{\"id\":'}; id=${id%%,*}; "
                           "printf '{\"type\":\"progress\",\"id\":%s,\"stage\":\"timing\","
                           "\"done\":0,\"total\":1}\\n' \"$id\"; exec cat > /dev/null")
                .arg(kRunnerProtocolVersion);
        SanitizerRun run(fakeSanitizer(dir), QStringLiteral("/bin/sh"),
                         {QStringLiteral("-c"), hangs}, 1000);
        QSignalSpy progress(&run, &SanitizerRun::progress);
        QSignalSpy finished(&run, &SanitizerRun::finished);
        RunRequest request = saxpyRequest();
        request.sanitizer = SanitizerTool::Memcheck;
        request.project.timing.timeLimitMs = 10; // kSanitizerTimeScale makes it 0.3 s
        QString error;
        QVERIFY2(run.start(12, request, &error), qPrintable(error));
        QVERIFY(progress.count() > 0 || progress.wait(10000));
        if (cancel)
            run.cancel();
        QVERIFY(finished.wait(10000));
        const RunResult r = finished.first().at(1).value<RunResult>();
        QCOMPARE(int(r.status), status);
        QCOMPARE(r.sanitizerTool, SanitizerTool::Memcheck);
        QVERIFY2(r.sanitizerNote.contains("compute-sanitizer was stopped with the runner") &&
                     r.sanitizerNote.contains(why),
                 qPrintable(r.sanitizerNote));
    }

    // kernelpad-cli run --memcheck: the exit code and the messages, with no GPU here.
    void cliMemcheck_data() {
        QTest::addColumn<QStringList>("extraArgs");
        QTest::addColumn<QString>("report"); // canned report; empty: the clean log
        QTest::addColumn<bool>("fake");      // use the stand-in compute-sanitizer
        QTest::addColumn<QList<int>>("exitCodes");
        QTest::addColumn<QString>("expected"); // in stdout or stderr
        QTest::newRow("errors found exit 3 and print like a compiler")
            << QStringList{"--memcheck"} << "memcheck-oob-write.txt" << true << QList<int>{3}
            << "saxpy.cu:7: error: Invalid __global__ write of size 4 bytes by thread (3,0,0) in "
               "block (1,0,0)";
        QTest::newRow("json carries the reports")
            << QStringList{"--memcheck", "--json"} << "memcheck-oob-write.txt" << true
            << QList<int>{3} << "\"sanitizer\": [";
        QTest::newRow("without a driver: the driver message")
            << QStringList{"--memcheck"} << "" << true << QList<int>{0, 3} << "";
        QTest::newRow("unknown tool")
            << QStringList{"--sanitizer-tool", "helgrind"} << "" << true << QList<int>{4}
            << "--sanitizer-tool takes memcheck, racecheck or initcheck";
        QTest::newRow("not with --in-process")
            << QStringList{"--memcheck", "--in-process"} << "" << true << QList<int>{4}
            << "cannot be combined with --in-process";
    }
    void cliMemcheck() {
        QFETCH(QStringList, extraArgs);
        QFETCH(QString, report);
        QFETCH(bool, fake);
        QFETCH(QList<int>, exitCodes);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        if (fake)
            env.insert("KERNELPAD_COMPUTE_SANITIZER", fakeSanitizer(dir));
        if (!report.isEmpty())
            env.insert("KERNELPAD_FAKE_SANITIZER_REPORT", dataPath(report));
        env.remove("KERNELPAD_IN_PROCESS");
        QProcess cli;
        cli.setProcessEnvironment(env);
        cli.start(QStringLiteral(KERNELPAD_CLI_PATH),
                  QStringList{"run", QStringLiteral(KERNELPAD_EXAMPLES_DIR "/saxpy.kpad")} +
                      extraArgs);
        QVERIFY(cli.waitForFinished(120000));
        const QString out =
            QString::fromUtf8(cli.readAllStandardOutput() + cli.readAllStandardError());
        QCOMPARE(cli.exitStatus(), QProcess::NormalExit); // never a crash
        QVERIFY2(exitCodes.contains(cli.exitCode()),
                 qPrintable(QString::number(cli.exitCode()) + "\n" + out));
        QVERIFY2(out.contains(expected), qPrintable(out));
        if (QTest::currentDataTag() == QLatin1String("without a driver: the driver message")) {
            QVERIFY2(out.contains("compute-sanitizer memcheck: no errors"), qPrintable(out));
            if (cli.exitCode() == 3) // no driver here: its own message, not a sanitizer one
                QVERIFY2(out.contains("compile-only"), qPrintable(out));
        }
    }
};

KERNELPAD_TEST_GUILESS_MAIN(TestSanitizer)
} // namespace tst_sanitizer
#include "tst_sanitizer.moc"
