#include "core/compile/CompileComparison.h"

#include <QJsonArray>

namespace kernelpad {

const KernelSummary* CompileSummary::find(const QString& lowered) const {
    for (const KernelSummary& k : kernels)
        if (k.lowered == lowered)
            return &k;
    return nullptr;
}

CompileSummary summarizeCompile(const CompileResult& compile, const SassListing* sass) {
    CompileSummary summary;
    summary.hasSass = sass != nullptr;
    // Kernels only: a device function the compiler kept apart is counted where it is called
    // from neither listing, the same on both sides of a comparison.
    for (const PtxFunctionBody& body : ptxFunctionBodies(compile.ptx)) {
        if (!body.entry)
            continue;
        KernelSummary k;
        k.lowered = body.name;
        const KernelInfo* info = compile.findKernel(body.name);
        k.name = info && !info->name.isEmpty() ? info->name : body.name;
        k.ptx = countPtx(body);
        if (sass) {
            if (const SassFunction* function = sass->findFunction(body.name)) {
                k.hasSass = true;
                k.sass = countSass(*function);
            }
        }
        k.facts = kernelCompileFacts(compile.ptx, compile.log, body.name);
        summary.kernels.append(k);
    }
    return summary;
}

QString ComparisonRow::text(const QString& arrow) const {
    const auto side = [](const std::optional<qint64>& v) {
        return v ? QString::number(*v) : QStringLiteral("-");
    };
    QString out = side(before) + arrow + side(after);
    if (before && after && *before != *after) {
        const qint64 delta = *after - *before;
        out +=
            QStringLiteral(" (%1%2)").arg(delta > 0 ? QStringLiteral("+") : QString()).arg(delta);
    }
    return out;
}

const ComparisonRow* KernelComparison::row(const QString& key) const {
    for (const ComparisonRow& r : rows)
        if (r.key == key)
            return &r;
    return nullptr;
}

const KernelComparison* CompileComparison::find(const QString& nameOrLowered) const {
    for (const KernelComparison& k : kernels)
        if (k.name == nameOrLowered || k.lowered == nameOrLowered)
            return &k;
    return nullptr;
}

namespace {

/// The figures of one kernel summary, in table order, keyed; absent ones are nullopt.
QVector<ComparisonRow> figures(const KernelSummary* k, bool withSass) {
    QVector<ComparisonRow> rows;
    const auto add = [&](const QString& key, const QString& label, std::optional<qint64> value) {
        rows.append({key, label, std::nullopt, value});
    };
    const auto known = [&](bool ok, qint64 value) {
        return ok ? std::optional<qint64>(value) : std::nullopt;
    };
    const auto counts = [&](const QString& prefix, const QString& title, bool ok,
                            const InstructionCounts& c) {
        for (const InstructionClass kind : instructionClasses())
            add(prefix + QLatin1Char('.') + instructionClassName(kind),
                title + QLatin1Char(' ') + instructionClassName(kind), known(ok, c.count(kind)));
        add(prefix + QStringLiteral(".total"), title + QStringLiteral(" total"),
            known(ok, c.total));
    };
    counts(QStringLiteral("ptx"), QStringLiteral("PTX"), k != nullptr,
           k ? k->ptx : InstructionCounts{});
    if (withSass) {
        const bool ok = k && k->hasSass;
        counts(QStringLiteral("sass"), QStringLiteral("SASS"), ok,
               ok ? k->sass : InstructionCounts{});
        add(QStringLiteral("sass.localLoads"), QStringLiteral("SASS local loads (LDL)"),
            known(ok, ok ? k->sass.localLoads : 0));
        add(QStringLiteral("sass.localStores"), QStringLiteral("SASS local stores (STL)"),
            known(ok, ok ? k->sass.localStores : 0));
    }
    const bool ptxas = k && k->facts.ptxasReported;
    add(QStringLiteral("registers"), QStringLiteral("registers"),
        known(ptxas, ptxas ? k->facts.registers : 0));
    add(QStringLiteral("spillStoreBytes"), QStringLiteral("spill stores (bytes)"),
        known(ptxas, ptxas ? k->facts.spillStoreBytes : 0));
    add(QStringLiteral("spillLoadBytes"), QStringLiteral("spill loads (bytes)"),
        known(ptxas, ptxas ? k->facts.spillLoadBytes : 0));
    // ptxas's figures where it reported them (what runs), else what the PTX declares.
    add(QStringLiteral("localBytes"), QStringLiteral("local memory (bytes)"),
        k ? std::optional<qint64>(ptxas ? k->facts.stackBytes : k->facts.localBytes)
          : std::nullopt);
    add(QStringLiteral("sharedBytes"), QStringLiteral("shared memory (bytes)"),
        k ? std::optional<qint64>(ptxas ? k->facts.ptxasSharedBytes : k->facts.sharedBytes)
          : std::nullopt);
    return rows;
}

QJsonObject diffJson(const ListingDiff& diff, bool withRows) {
    QJsonObject object{{"changed", diff.changed},
                       {"removed", diff.removed},
                       {"added", diff.added},
                       {"identical", diff.identical()}};
    if (diff.truncated)
        object.insert("truncated", true);
    if (withRows) {
        QJsonArray rows;
        for (const ListingDiffRow& row : diff.rows) {
            if (row.kind == ListingDiffRow::Kind::Same)
                continue;
            QJsonObject r;
            r.insert("kind", row.kind == ListingDiffRow::Kind::Changed   ? "changed"
                             : row.kind == ListingDiffRow::Kind::Removed ? "removed"
                                                                         : "added");
            if (row.before >= 0)
                r.insert("before", diff.before.at(row.before).trimmed());
            if (row.after >= 0)
                r.insert("after", diff.after.at(row.after).trimmed());
            rows.append(r);
        }
        object.insert("rows", rows);
    }
    return object;
}

} // namespace

QJsonObject CompileComparison::toJson(bool withPtxRows) const {
    QJsonArray kernelArray;
    for (const KernelComparison& k : kernels) {
        QJsonObject rowsObject;
        for (const ComparisonRow& r : k.rows) {
            QJsonObject value;
            if (r.before)
                value.insert("before", *r.before);
            if (r.after)
                value.insert("after", *r.after);
            if (r.before && r.after)
                value.insert("delta", *r.after - *r.before);
            rowsObject.insert(r.key, value);
        }
        kernelArray.append(QJsonObject{{"name", k.name},
                                       {"lowered", k.lowered},
                                       {"inBefore", k.inBefore},
                                       {"inAfter", k.inAfter},
                                       {"figures", rowsObject}});
    }
    QJsonObject object{{"kernels", kernelArray}, {"ptx", diffJson(ptx, withPtxRows)}};
    if (hasSass)
        object.insert("sass", diffJson(sass, false));
    return object;
}

ProgramOptions withPtxasReport(ProgramOptions options) {
    for (const QString& flag : options.extraFlags)
        if (flag == QLatin1String("-v") || flag == QLatin1String("--verbose") ||
            flag.endsWith(QLatin1String("=-v")) || flag.endsWith(QLatin1String("=--verbose")))
            return options;
    options.extraFlags << QStringLiteral("-Xptxas") << QStringLiteral("-v");
    return options;
}

CompileComparison compareCompiles(const CompileResult& before, const SassListing* beforeSass,
                                  const CompileResult& after, const SassListing* afterSass) {
    CompileComparison comparison;
    comparison.hasSass = beforeSass && afterSass;
    const CompileSummary old = summarizeCompile(before, comparison.hasSass ? beforeSass : nullptr);
    const CompileSummary now = summarizeCompile(after, comparison.hasSass ? afterSass : nullptr);

    const auto compare = [&](const KernelSummary* b, const KernelSummary* a) {
        KernelComparison k;
        const KernelSummary* named = a ? a : b;
        k.name = named->name;
        k.lowered = named->lowered;
        k.inBefore = b != nullptr;
        k.inAfter = a != nullptr;
        k.rows = figures(a, comparison.hasSass);
        const QVector<ComparisonRow> oldRows = figures(b, comparison.hasSass);
        for (int i = 0; i < k.rows.size(); ++i)
            k.rows[i].before = oldRows.at(i).after;
        comparison.kernels.append(k);
    };
    for (const KernelSummary& a : now.kernels)
        compare(old.find(a.lowered), &a);
    for (const KernelSummary& b : old.kernels)
        if (!now.find(b.lowered))
            compare(&b, nullptr);

    comparison.ptx = diffListings(before.ptx, after.ptx, ListingKind::Ptx);
    if (comparison.hasSass)
        comparison.sass = diffListings(beforeSass->text, afterSass->text, ListingKind::Sass);
    return comparison;
}

} // namespace kernelpad
