#include "app/cli/CliTest.h"

#include "core/io/ControlChars.h"

#include <QDateTime>
#include <QSysInfo>
#include <QXmlStreamWriter>

#include <algorithm>

namespace kernelpad::cli {

namespace {

/// Text XML 1.0 can carry: control characters (but line breaks and tabs where `lines`),
/// unpaired surrogates and U+FFFE/U+FFFF written as \uXXXX.
QString junitText(const QString& text, bool lines) {
    QStringList parts = lines ? text.split(QLatin1Char('\n')) : QStringList{text};
    for (QString& part : parts) {
        part = escapeControlCharacters(part);
        QString safe;
        safe.reserve(part.size());
        for (qsizetype i = 0; i < part.size(); ++i) {
            const QChar c = part[i];
            const bool pairStart =
                c.isHighSurrogate() && i + 1 < part.size() && part[i + 1].isLowSurrogate();
            if (pairStart) {
                safe += c;
                safe += part[++i];
            } else if (c.isSurrogate() || c.unicode() == 0xFFFE || c.unicode() == 0xFFFF) {
                safe += QStringLiteral("\\u%1").arg(c.unicode(), 4, 16, QLatin1Char('0'));
            } else {
                safe += c;
            }
        }
        part = safe;
    }
    return parts.join(QLatin1Char('\n'));
}

QString junitSeconds(double value) {
    return QString::number(std::max(0.0, value), 'f', 3);
}

/// The message and the details of a check, as the body of its <failure> or <skipped>.
QString checkBody(const TestCheck& check) {
    QStringList lines{check.message};
    lines << check.details;
    return junitText(lines.join(QLatin1Char('\n')), true);
}

void writeCheckCase(QXmlStreamWriter& xml, const QString& suite, const TestCaseResult& c,
                    const TestCheck& check) {
    xml.writeStartElement(QStringLiteral("testcase"));
    xml.writeAttribute(QStringLiteral("name"),
                       junitText(c.name + QStringLiteral(": ") + check.name, false));
    xml.writeAttribute(QStringLiteral("classname"),
                       junitText(suite + QLatin1Char('.') + c.name, false));
    xml.writeAttribute(QStringLiteral("time"), junitSeconds(c.run.totalMs / 1000.0));
    switch (check.outcome) {
    case CheckOutcome::Failed:
        xml.writeStartElement(QStringLiteral("failure"));
        xml.writeAttribute(QStringLiteral("message"), junitText(check.message, false));
        xml.writeAttribute(QStringLiteral("type"), junitText(check.name, false));
        xml.writeCharacters(checkBody(check));
        xml.writeEndElement();
        break;
    case CheckOutcome::Skipped:
        xml.writeStartElement(QStringLiteral("skipped"));
        xml.writeAttribute(QStringLiteral("message"), junitText(check.message, false));
        xml.writeEndElement();
        break;
    case CheckOutcome::Warning:
        xml.writeTextElement(QStringLiteral("system-out"),
                             QStringLiteral("warning: ") + checkBody(check));
        break;
    case CheckOutcome::Passed:
        if (!check.message.isEmpty())
            xml.writeTextElement(QStringLiteral("system-out"), checkBody(check));
        break;
    }
    xml.writeEndElement();
}

/// The counts and the time both <testsuites> and <testsuite> carry.
void writeCounts(QXmlStreamWriter& xml, const TestReport& report, int tests, int errors,
                 double totalSeconds) {
    xml.writeAttribute(QStringLiteral("tests"), QString::number(tests));
    xml.writeAttribute(QStringLiteral("failures"),
                       QString::number(report.count(CheckOutcome::Failed)));
    xml.writeAttribute(QStringLiteral("errors"), QString::number(errors));
    xml.writeAttribute(QStringLiteral("skipped"),
                       QString::number(report.count(CheckOutcome::Skipped)));
    xml.writeAttribute(QStringLiteral("time"), junitSeconds(totalSeconds));
}

} // namespace

QByteArray junitXml(const TestReport& report, double totalSeconds) {
    const QString suite = report.project.isEmpty() ? QStringLiteral("project") : report.project;
    const bool stopped = !report.error.isEmpty() || report.status != RunStatus::Ok;
    int tests = 0;
    for (const TestCaseResult& c : report.cases)
        tests += int(c.checks.size());
    const int errors = stopped ? 1 : 0;
    QByteArray bytes;
    QXmlStreamWriter xml(&bytes);
    xml.setAutoFormatting(true);
    xml.writeStartDocument();
    xml.writeStartElement(QStringLiteral("testsuites"));
    xml.writeAttribute(QStringLiteral("name"), QStringLiteral("kernelpad-cli test"));
    writeCounts(xml, report, tests + errors, errors, totalSeconds);
    xml.writeStartElement(QStringLiteral("testsuite"));
    xml.writeAttribute(QStringLiteral("name"), junitText(suite, false));
    writeCounts(xml, report, tests + errors, errors, totalSeconds);
    xml.writeAttribute(QStringLiteral("timestamp"),
                       QDateTime::currentDateTimeUtc().toString(Qt::ISODate).chopped(1));
    xml.writeAttribute(QStringLiteral("hostname"), junitText(QSysInfo::machineHostName(), false));
    if (!report.note.isEmpty()) {
        xml.writeStartElement(QStringLiteral("properties"));
        xml.writeEmptyElement(QStringLiteral("property"));
        xml.writeAttribute(QStringLiteral("name"), QStringLiteral("note"));
        xml.writeAttribute(QStringLiteral("value"), junitText(report.note, false));
        xml.writeEndElement();
    }
    for (const TestCaseResult& c : report.cases)
        for (const TestCheck& check : c.checks)
            writeCheckCase(xml, suite, c, check);
    if (stopped) {
        xml.writeStartElement(QStringLiteral("testcase"));
        xml.writeAttribute(QStringLiteral("name"), QStringLiteral("test run"));
        xml.writeAttribute(QStringLiteral("classname"), junitText(suite, false));
        xml.writeAttribute(QStringLiteral("time"), junitSeconds(0));
        xml.writeStartElement(QStringLiteral("error"));
        xml.writeAttribute(QStringLiteral("message"),
                           junitText(report.error.section(QLatin1Char('\n'), 0, 0), false));
        xml.writeAttribute(QStringLiteral("type"), runStatusName(report.status));
        xml.writeCharacters(junitText(report.error, true));
        xml.writeEndElement();
        xml.writeEndElement();
    }
    xml.writeEndElement(); // testsuite
    xml.writeEndElement(); // testsuites
    xml.writeEndDocument();
    return bytes;
}

void printTestReport(QTextStream& out, const TestReport& report) {
    out << (report.project.isEmpty() ? QStringLiteral("project") : report.project) << ": ";
    if (report.cases.isEmpty() && !report.error.isEmpty())
        out << "stopped before its cases";
    else
        out << report.cases.size() << (report.cases.size() == 1 ? " case" : " cases");
    if (!report.note.isEmpty())
        out << " (" << report.note << ')';
    out << '\n';
    qsizetype nameWidth = 0, launchWidth = 0;
    for (const TestCaseResult& c : report.cases) {
        nameWidth = std::max(nameWidth, c.name.size());
        launchWidth = std::max(launchWidth, c.launch.size());
    }
    for (const TestCaseResult& c : report.cases) {
        out << "  " << escapeControlCharacters(c.name).leftJustified(int(nameWidth)) << "  "
            << c.launch.leftJustified(int(launchWidth));
        for (const TestCheck& check : c.checks)
            out << "  " << check.name << ' '
                << (check.outcome == CheckOutcome::Failed ? QStringLiteral("FAILED")
                                                          : checkOutcomeName(check.outcome));
        out << '\n';
        for (const TestCheck& check : c.checks) {
            if (check.outcome != CheckOutcome::Failed && check.outcome != CheckOutcome::Warning)
                continue;
            out << "      " << check.name << ": " << escapeControlCharacters(check.message) << '\n';
            for (const QString& line : check.details)
                out << "        " << escapeControlCharacters(line) << '\n';
        }
    }
    if (!report.error.isEmpty())
        out << "test stopped (" << runStatusName(report.status) << "): " << report.error << '\n';
    out << report.count(CheckOutcome::Passed) << " passed, " << report.count(CheckOutcome::Failed)
        << " failed, " << report.count(CheckOutcome::Warning) << " warnings, "
        << report.count(CheckOutcome::Skipped) << " skipped"
        << (report.passed() ? QStringLiteral(": every check passed") : QString()) << '\n';
}

} // namespace kernelpad::cli
