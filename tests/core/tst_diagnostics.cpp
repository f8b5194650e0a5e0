// parseNvrtcLog against logs NVRTC really writes, and hand-written samples of its other forms.

#include "core/compile/Diagnostics.h"
#include "core/compile/Program.h"

#include "../support/TestMain.h"
#include "TestPaths.h"
#include <QtTest>

namespace tst_diagnostics {

using namespace kernelpad;

namespace {

using Severity = Diagnostic::Severity;

/// Compiles `source` with NVRTC and returns its log (the parser is run separately on it).
QString nvrtcLog(const QString& source, const QStringList& extraFlags = {},
                 const QStringList& includeDirs = {}, const QString& projectDir = {}) {
    ProgramOptions options;
    options.extraFlags = extraFlags;
    options.includeDirs = includeDirs;
    return Program(source, QStringLiteral("kernel.cu"), options, projectDir)
        .compile(QStringLiteral("sm_90"))
        .log;
}

/// 1-based column of `needle` on 1-based `line` of `source`: what the editor will mark.
int columnOf(const QString& source, int line, const QString& needle) {
    return int(source.split(u'\n').at(line - 1).indexOf(needle)) + 1;
}

} // namespace

class TestDiagnostics : public QObject {
    Q_OBJECT

private slots:
    void realLogs_data();
    void realLogs();
    void twoErrorsOnDifferentLines();
    void errorInIncludedHeader();
    void multiLineMessageFromNvrtc();
    void handWrittenLogs_data();
    void handWrittenLogs();
    void severityNames();
    void nothingFromNoise_data();
    void nothingFromNoise();
    void defineRefusedByNvrtc_data();
    void defineRefusedByNvrtc();
};

void TestDiagnostics::realLogs_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<QStringList>("flags");
    QTest::addColumn<int>("severity");
    QTest::addColumn<int>("line");
    QTest::addColumn<QString>("columnOfText"); // the text the caret points at
    QTest::addColumn<QString>("messagePart");

    const QString undefined = "__global__ void k(float* out)\n{\n    float a = 1.0f;\n"
                              "    out[0] = a;\n    out[1] = missing;\n}\n";
    QTest::newRow("undefined identifier on line 5")
        << undefined << QStringList{} << int(Severity::Error) << 5 << "missing"
        << "identifier \"missing\" is undefined";
    const QString unused =
        "__global__ void k(float* out)\n{\n    int unusedVar;\n    out[0] = 1;\n}\n";
    QTest::newRow("unused variable warning keeps its code")
        << unused << QStringList{} << int(Severity::Warning) << 3 << "unusedVar"
        << "variable \"unusedVar\" was declared but never referenced [#177-D]";
    const QString tabs = "__global__ void k(float* out)\n{\n\tout[0] = tabbed;\n}\n";
    QTest::newRow("tab-indented line: column counts the tab once")
        << tabs << QStringList{} << int(Severity::Error) << 3 << "tabbed"
        << "\"tabbed\"";
    const QString utf8 = "__global__ void k(float* out)\n{\n    const char* s = \"é€\"; out[0] = "
                         "s[0] + bad_after;\n}\n";
    QTest::newRow("non-ASCII before the caret: column in characters")
        << utf8 << QStringList{} << int(Severity::Error) << 3 << "bad_after"
        << "is undefined";
    const QString missingSemicolon =
        "__global__ void k(float* out)\n{\n    int x = 1\n    out[0] = x;\n}\n";
    QTest::newRow("missing semicolon reported on the next line")
        << missingSemicolon << QStringList{} << int(Severity::Error) << 4 << "out"
        << "expected a \";\"";
    // An unknown option no longer reaches NVRTC (the allow-list refuses it); a value NVRTC
    // itself refuses still gives a position-less message.
    QTest::newRow("bad option has no position")
        << "__global__ void k() {}\n"
        << QStringList{"-U", "NOT_DEFINED", "--diag-suppress=99999"} << int(Severity::Error) << 0
        << QString() << "99999";
    QTest::newRow("#error is a catastrophic error")
        << "__global__ void k() {}\n#error stop here\n"
        << QStringList{} << int(Severity::Error) << 2 << "error"
        << "stop here";
}

void TestDiagnostics::realLogs() {
    QFETCH(QString, source);
    QFETCH(QStringList, flags);
    QFETCH(int, severity);
    QFETCH(int, line);
    QFETCH(QString, columnOfText);
    QFETCH(QString, messagePart);

    const QString log = nvrtcLog(source, flags);
    const QVector<Diagnostic> diagnostics = parseNvrtcLog(log);
    QVERIFY2(!diagnostics.isEmpty(), qPrintable(log));
    // A warning comes with errors only when we asked for one; take the one of our severity.
    const auto it = std::find_if(diagnostics.cbegin(), diagnostics.cend(),
                                 [&](const Diagnostic& d) { return int(d.severity) == severity; });
    QVERIFY2(it != diagnostics.cend(), qPrintable(log));
    QVERIFY2(it->message.contains(messagePart), qPrintable(it->message + "\n---\n" + log));
    QCOMPARE(it->line, line);
    if (line > 0) {
        QCOMPARE(it->file, QStringLiteral("kernel.cu"));
        QCOMPARE(it->column, columnOf(source, line, columnOfText));
    } else {
        QVERIFY(it->file.isEmpty());
        QCOMPARE(it->column, 0);
    }
    QVERIFY2(!it->message.contains(QLatin1String("detected in the compilation")), qPrintable(log));
}

void TestDiagnostics::twoErrorsOnDifferentLines() {
    const QString source = "__global__ void k(float* out)\n{\n    out[0] = first;\n\n"
                           "    out[1] = 2.0f * second;\n}\n";
    const QVector<Diagnostic> diagnostics = parseNvrtcLog(nvrtcLog(source));
    QCOMPARE(diagnostics.size(), 2);
    QCOMPARE(diagnostics.at(0).line, 3);
    QCOMPARE(diagnostics.at(0).column, columnOf(source, 3, "first"));
    QCOMPARE(diagnostics.at(1).line, 5);
    QCOMPARE(diagnostics.at(1).column, columnOf(source, 5, "second"));
    QVERIFY(diagnostics.at(1).message.contains(QLatin1String("second")));
}

void TestDiagnostics::errorInIncludedHeader() {
    // The header's folder lies inside the project's (includes outside it are refused).
    const QString dir = QStringLiteral(KERNELPAD_TEST_DATA_DIR "/compile");
    const QString log = nvrtcLog(
        "#include \"broken_header.cuh\"\n__global__ void k(float* x) { x[0] = helper(1); }\n", {},
        {dir}, QStringLiteral(KERNELPAD_TEST_DATA_DIR));
    const QVector<Diagnostic> diagnostics = parseNvrtcLog(log);
    QCOMPARE(diagnostics.size(), 1);
    QVERIFY2(diagnostics.first().file.endsWith(QLatin1String("broken_header.cuh")),
             qPrintable(log));
    QFile header(dir + "/broken_header.cuh");
    QVERIFY(header.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(header.readAll());
    QCOMPARE(diagnostics.first().line, 5);
    QCOMPARE(diagnostics.first().column, columnOf(text, 5, "undefined_in_header"));
}

void TestDiagnostics::multiLineMessageFromNvrtc() {
    // Ambiguous overload: NVRTC lists the candidates on indented lines before the source echo.
    const QString source = "__device__ void f(int);\n__device__ void f(long);\n"
                           "__global__ void k() {\n    f(1.0);\n}\n";
    const QString log = nvrtcLog(source);
    const QVector<Diagnostic> diagnostics = parseNvrtcLog(log);
    QCOMPARE(diagnostics.size(), 1);
    const Diagnostic& d = diagnostics.first();
    QCOMPARE(d.line, 4);
    QCOMPARE(d.column, columnOf(source, 4, "f("));
    QVERIFY2(d.message.contains(QLatin1String("argument types are: (double)")), qPrintable(log));
    QVERIFY2(!d.message.contains(QLatin1String("f(1.0)")), qPrintable(d.message)); // not the echo
}

void TestDiagnostics::handWrittenLogs_data() {
    QTest::addColumn<QString>("log");
    QTest::addColumn<QVector<Diagnostic>>("expected");

    const auto diag = [](QString file, int line, int column, Severity severity, QString message) {
        Diagnostic d;
        d.file = std::move(file);
        d.line = line;
        d.column = column;
        d.severity = severity;
        d.message = std::move(message);
        return d;
    };
    QTest::newRow("nvrtc option error")
        << "nvrtc: error: invalid value for --gpu-architecture (-arch)\n"
        << QVector<Diagnostic>{
               diag({}, 0, 0, Severity::Error, "invalid value for --gpu-architecture (-arch)")};
    QTest::newRow("bare error without a tool")
        << "error: something went wrong\n"
        << QVector<Diagnostic>{diag({}, 0, 0, Severity::Error, "something went wrong")};
    QTest::newRow("remark with code, no echo")
        << "a.cu(7): remark #550-D: variable \"v\" was set but never used\n\n"
        << QVector<Diagnostic>{diag("a.cu", 7, 0, Severity::Remark,
                                    "variable \"v\" was set but never used [#550-D]")};
    QTest::newRow("note after an error")
        << "a.cu(3): error: bad thing\n  bad();\n  ^\n\na.cu(1): note #3326-D: declared here\n\n"
        << QVector<Diagnostic>{diag("a.cu", 3, 1, Severity::Error, "bad thing"),
                               diag("a.cu", 1, 0, Severity::Note, "declared here [#3326-D]")};
    QTest::newRow("instantiation context after the caret")
        << "t.cu(2): error: name followed by \"::\" must be a class or namespace name\n"
           "    a[0] = T::nope;\n           ^\n"
           "          detected during instantiation of \"void k(T *) [with T=float]\" at line 4\n\n"
           "1 error detected in the compilation of \"t.cu\".\n"
        << QVector<Diagnostic>{
               diag("t.cu", 2, 10, Severity::Error,
                    "name followed by \"::\" must be a class or namespace name\n"
                    "detected during instantiation of \"void k(T *) [with T=float]\" "
                    "at line 4")};
    QTest::newRow("windows line endings")
        << "w.cu(9): warning #177-D: variable \"y\" was declared but never referenced\r\n"
           "    int y;\r\n        ^\r\n\r\n"
        << QVector<Diagnostic>{diag("w.cu", 9, 7, Severity::Warning,
                                    "variable \"y\" was declared but never referenced [#177-D]")};
    QTest::newRow("catastrophic error, then 'Compilation terminated'")
        << "c.cu(1): catastrophic error: cannot open source file \"nope.h\"\n"
           "  #include \"nope.h\"\n           ^\n\n"
           "1 catastrophic error detected in the compilation of \"c.cu\".\nCompilation "
           "terminated.\n"
        << QVector<Diagnostic>{
               diag("c.cu", 1, 10, Severity::Error, "cannot open source file \"nope.h\"")};
    QTest::newRow("path with parentheses and a line,column pair")
        << "/tmp/dir (copy)/x.cu(12,4): error: oops\n"
        << QVector<Diagnostic>{diag("/tmp/dir (copy)/x.cu", 12, 4, Severity::Error, "oops")};
    QTest::newRow("invalid macro definition from a -D")
        << "Command-line error: invalid macro definition: X=a##\n\n"
           "1 catastrophic error detected in the compilation of \"k.cu\".\n"
           "Compilation terminated.\n"
        << QVector<Diagnostic>{diag({}, 0, 0, Severity::Error,
                                    "defines: NVRTC refuses the macro definition \"X=a##\" (its "
                                    "value must be a valid replacement list: no \"##\" at "
                                    "either end, no unclosed comment)")};
    QTest::newRow("invalid macro undefinition from a -U")
        << "Command-line error: invalid macro undefinition: \n\n"
        << QVector<Diagnostic>{diag({}, 0, 0, Severity::Error,
                                    "extraFlags: NVRTC refuses the macro undefinition -U \"\" (it "
                                    "takes a macro name)")};
    QTest::newRow("other command-line errors keep their text")
        << "Command-line error: something new\n"
        << QVector<Diagnostic>{diag({}, 0, 0, Severity::Error, "command line: something new")};
    QTest::newRow("the suppression hint is not a diagnostic")
        << "Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n"
        << QVector<Diagnostic>{};
}

void TestDiagnostics::handWrittenLogs() {
    QFETCH(QString, log);
    QFETCH(QVector<Diagnostic>, expected);
    const QVector<Diagnostic> actual = parseNvrtcLog(log);
    QCOMPARE(actual.size(), expected.size());
    for (qsizetype i = 0; i < actual.size(); ++i) {
        QCOMPARE(actual.at(i).file, expected.at(i).file);
        QCOMPARE(actual.at(i).line, expected.at(i).line);
        QCOMPARE(actual.at(i).column, expected.at(i).column);
        QCOMPARE(severityName(actual.at(i).severity), severityName(expected.at(i).severity));
        QCOMPARE(actual.at(i).message, expected.at(i).message);
        QVERIFY(actual.at(i) == expected.at(i));
        QString error;
        const std::optional<Diagnostic> back = Diagnostic::fromJson(actual.at(i).toJson(), &error);
        QVERIFY2(back && *back == actual.at(i), qPrintable(error));
    }
}

void TestDiagnostics::severityNames() {
    QCOMPARE(severityName(Severity::Error), QStringLiteral("error"));
    QCOMPARE(severityName(Severity::Warning), QStringLiteral("warning"));
    QCOMPARE(severityName(Severity::Remark), QStringLiteral("remark"));
    QCOMPARE(severityName(Severity::Note), QStringLiteral("note"));
}

void TestDiagnostics::nothingFromNoise_data() {
    QTest::addColumn<QString>("log");
    QTest::newRow("empty") << QString();
    QTest::newRow("only the summary") << "2 errors detected in the compilation of \"x.cu\".\n";
    QTest::newRow("carets and indentation alone") << "   ^\n      ^\n  int x;\n";
    QTest::newRow("unclosed position") << "x.cu(12: error: nope\n";
    QTest::newRow("huge line of parentheses") << QString(200000, u'(') + "): ";
    QTest::newRow("binary junk") << QString::fromLatin1(QByteArray(4096, '\x01'));
}

void TestDiagnostics::nothingFromNoise() {
    QFETCH(QString, log);
    QVERIFY(parseNvrtcLog(log).isEmpty());
}

void TestDiagnostics::defineRefusedByNvrtc_data() {
    // Values that pass ProgramOptions' NAME[=VALUE] check but that NVRTC's front end refuses
    // with "Command-line error: invalid macro definition: ..." and no file or line.
    QTest::addColumn<QString>("define");
    QTest::newRow("token paste at the end") << "X=a##";
    QTest::newRow("only a token paste") << "X=##";
    QTest::newRow("unterminated comment") << "X=/*";
}

void TestDiagnostics::defineRefusedByNvrtc() {
    QFETCH(QString, define);
    ProgramOptions options;
    options.defines = QStringList{QStringLiteral("OK=1"), define};
    QVERIFY2(options.validate().isEmpty(), qPrintable(options.validate()));
    const CompileResult result =
        Program(QStringLiteral("__global__ void k() {}\n"), QStringLiteral("kernel.cu"), options)
            .compile(QStringLiteral("sm_90"));
    QVERIFY(!result.ok);
    QVERIFY2(result.log.contains(QLatin1String("invalid macro definition")),
             qPrintable(result.log));
    // Parsed, not left in the raw log: one error naming the field and the define.
    QCOMPARE(result.errorCount(), 1);
    const Diagnostic& d = result.diagnostics.first();
    QCOMPARE(d.severity, Severity::Error);
    QCOMPARE(d.line, 0);
    QVERIFY(d.file.isEmpty());
    QVERIFY2(d.message.startsWith(
                 QStringLiteral("defines: NVRTC refuses the macro definition \"%1\"").arg(define)),
             qPrintable(d.message));
    QVERIFY2(!d.message.contains(QLatin1String("NVRTC_ERROR")), qPrintable(d.message));
}

KERNELPAD_TEST_GUILESS_MAIN(TestDiagnostics)
} // namespace tst_diagnostics
#include "tst_diagnostics.moc"
