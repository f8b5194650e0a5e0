#include "core/sweep/SweepCost.h"

#include "core/launch/BufferInit.h"

#include <QHash>

#include <algorithm>
#include <cmath>

namespace kernelpad {

namespace {

constexpr double kUnknownCost = std::numeric_limits<double>::quiet_NaN();

/// Whether the finite values of `costs` are not all the same.
bool varies(const QVector<double>& costs) {
    double first = kUnknownCost;
    for (double c : costs) {
        if (!std::isfinite(c))
            continue;
        if (std::isnan(first))
            first = c;
        else if (c != first)
            return true;
    }
    return false;
}

/// The bytes of every buffer `point`'s project allocates; NaN when it cannot launch or a count
/// does not resolve (the run will say why).
double bufferBytes(const SweepSpace& space, const SweepPoint& point) {
    QString why;
    const std::optional<Project> project = space.project(point, &why);
    if (!project)
        return kUnknownCost;
    double bytes = 0;
    for (const ArgumentSpec& arg : project->arguments) {
        if (!arg.isBuffer())
            continue;
        const std::optional<qint64> count =
            resolveCount(arg.buffer.count, project->arguments, &why);
        if (!count)
            return kUnknownCost;
        bytes += double(*count) * double(arg.buffer.elementType.sizeBytes());
    }
    return bytes;
}

/// The product of `point`'s swept scalar arguments (n, or rows and cols), or of the tunables of
/// another `role`; NaN when none is swept or one is not positive.
double scalarProduct(const SweepSpace& space, const SweepPoint& point,
                     SweepTunable::Role role = SweepTunable::Role::Scalar) {
    const QVector<SweepTunable>& tunables = space.spec().tunables;
    double product = kUnknownCost;
    for (qsizetype t = 0; t < tunables.size() && t < point.size(); ++t) {
        if (tunables[t].role != role)
            continue;
        const double value = space.values()[t][point[t]];
        if (!(value > 0))
            return kUnknownCost;
        product = std::isnan(product) ? value : product * value;
    }
    return product;
}

} // namespace

QString SweepCostEstimate::basisName() const {
    switch (basis) {
    case Basis::None:
        return QStringLiteral("none");
    case Basis::PreviousTimes:
        return QStringLiteral("the times of an earlier run");
    case Basis::BufferBytes:
        return QStringLiteral("buffer bytes");
    case Basis::ScalarProduct:
        return QStringLiteral("the swept sizes");
    case Basis::SomePreviousTimes:
        return QStringLiteral("the times of an earlier run (some configurations)");
    case Basis::DefineProduct:
        return QStringLiteral("the swept defines");
    }
    return {};
}

SweepCostEstimate estimateSweepCosts(const SweepSpace& space,
                                     const QVector<SweepRecord>& previous) {
    SweepCostEstimate estimate;
    const qsizetype size = space.size();
    if (size < 2 || size > kMaxEstimatedConfigurations)
        return estimate;
    QHash<QString, double> previousMs;
    for (const SweepRecord& record : previous)
        if (std::isfinite(record.wallMs) && record.wallMs >= 0)
            previousMs.insert(record.key, record.wallMs);
    QVector<double> times(size, kUnknownCost);
    int timed = 0;
    for (qsizetype i = 0; i < size && !previousMs.isEmpty(); ++i) {
        times[i] = previousMs.value(space.key(space.points()[i]), kUnknownCost);
        timed += std::isfinite(times[i]) ? 1 : 0;
    }
    if (timed == size) {
        estimate.basis = SweepCostEstimate::Basis::PreviousTimes;
        estimate.costs = std::move(times);
        return estimate;
    }
    QVector<double> bytes(size);
    for (qsizetype i = 0; i < size; ++i)
        bytes[i] = bufferBytes(space, space.points()[i]);
    if (varies(bytes)) {
        estimate.basis = SweepCostEstimate::Basis::BufferBytes;
        estimate.costs = std::move(bytes);
        return estimate;
    }
    QVector<double> sizes(size);
    for (qsizetype i = 0; i < size; ++i)
        sizes[i] = scalarProduct(space, space.points()[i]);
    if (varies(sizes)) {
        estimate.basis = SweepCostEstimate::Basis::ScalarProduct;
        estimate.costs = std::move(sizes);
        return estimate;
    }
    if (timed > 0) {
        estimate.basis = SweepCostEstimate::Basis::SomePreviousTimes;
        estimate.costs = std::move(times);
        return estimate;
    }
    QVector<double> defines(size);
    for (qsizetype i = 0; i < size; ++i)
        defines[i] = scalarProduct(space, space.points()[i], SweepTunable::Role::Define);
    if (varies(defines)) {
        estimate.basis = SweepCostEstimate::Basis::DefineProduct;
        estimate.costs = std::move(defines);
    }
    return estimate;
}

void orderLongestFirst(QVector<int>* order, int count, const QVector<double>& costs) {
    if (costs.isEmpty())
        return;
    const auto costOf = [&costs](int index) {
        return index >= 0 && index < costs.size() ? costs[index] : kUnknownCost;
    };
    const auto end = order->begin() + std::clamp(count, 0, int(order->size()));
    std::stable_sort(order->begin(), end, [&costOf](int a, int b) {
        const double ca = costOf(a), cb = costOf(b);
        if (std::isnan(ca) || std::isnan(cb))
            return !std::isnan(ca) && std::isnan(cb);
        return ca > cb;
    });
}

} // namespace kernelpad
