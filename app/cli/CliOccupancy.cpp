#include "app/cli/CliOccupancy.h"

#include <QLocale>

namespace kernelpad::cli {

namespace {

QString percent(const Occupancy& o) {
    return QString::number(o.occupancy * 100.0, 'f', 1) + QStringLiteral(" %");
}

void printCurve(QTextStream& out, OccupancyAxis axis, const OccupancyCurves& curves) {
    const QVector<OccupancyPoint>& curve = curves.curve(axis);
    const OccupancyPoint best = occupancyBest(curve);
    out << "  vs " << occupancyAxisName(axis) << " (launch at "
        << QLocale(QLocale::English).toString(curves.currentX(axis)) << "; best "
        << percent(best.occupancy) << " from " << QLocale(QLocale::English).toString(best.x)
        << "):\n";
    // One line per step: from this x on, until the next step, the occupancy is the same.
    for (const OccupancyPoint& p : occupancySteps(curve))
        out << "    from " << qSetFieldWidth(7) << QLocale(QLocale::English).toString(p.x)
            << qSetFieldWidth(0) << "  " << qSetFieldWidth(7) << percent(p.occupancy)
            << qSetFieldWidth(0) << "  " << p.occupancy.activeBlocksPerSm << " blocks, "
            << p.occupancy.activeWarpsPerSm << " warps, limited by "
            << occupancyLimiterName(p.occupancy.limiter) << '\n';
}

} // namespace

void printOccupancy(QTextStream& out, const OccupancyReport& report, const QString& kernel) {
    if (!report.error.isEmpty()) {
        out << "Occupancy of " << kernel << ": none: " << report.error << '\n';
        return;
    }
    const OccupancyCurves& c = report.curves;
    out << "Occupancy of " << kernel << ", " << report.sourceText(QString()) << ": "
        << c.kernel.registersPerThread << " registers per thread, "
        << QLocale(QLocale::English).toString(c.kernel.staticSharedBytes)
        << " B static shared memory";
    if (c.kernel.barriers > 0)
        out << ", " << c.kernel.barriers << (c.kernel.barriers == 1 ? " barrier" : " barriers");
    out << "; block of " << c.blockThreads << " threads, "
        << QLocale(QLocale::English).toString(c.dynamicSharedBytes) << " B dynamic shared memory\n";
    out << "  at the launch: " << percent(c.current) << " (" << c.current.activeBlocksPerSm
        << (c.current.activeBlocksPerSm == 1 ? " block, " : " blocks, ")
        << c.current.activeWarpsPerSm << " of " << c.limits.maxWarpsPerSm << " warps per SM)\n";
    out << "  "
        << occupancyExplanation(c.current, c.limits, c.kernel, c.blockThreads, c.dynamicSharedBytes)
        << '\n';
    for (const OccupancyAxis axis :
         {OccupancyAxis::BlockSize, OccupancyAxis::Registers, OccupancyAxis::DynamicShared})
        printCurve(out, axis, c);
}

QJsonObject occupancyJson(const OccupancyReport& report) {
    if (!report.error.isEmpty())
        return QJsonObject{{QStringLiteral("error"), report.error}};
    QJsonObject o = report.curves.toJson(false);
    o.insert(QStringLiteral("source"), report.sourceText(QString()));
    o.insert(QStringLiteral("fromDevice"), report.fromDevice);
    o.insert(QStringLiteral("fromDriver"), report.fromDriver);
    return o;
}

} // namespace kernelpad::cli
