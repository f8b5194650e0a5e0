#include "ui/models/GlobalRows.h"

#include "core/launch/ArgumentText.h"
#include "core/launch/BufferInit.h"
#include "ui/models/ArgumentCells.h"
#include "ui/models/ArgumentTableModel.h"

#include <QCoreApplication>
#include <QHash>
#include <QSet>

#include <algorithm>

namespace kernelpad {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("kernelpad::GlobalRows", text);
}

/// The scalar type of a PTX declaration (".f32", ".u16", ".b8"); bit types read as unsigned.
ScalarType ptxScalarType(const QString& ptxType) {
    static const QHash<QString, ScalarType> kTypes = {{QStringLiteral(".f16"), ScalarType::Float16},
                                                      {QStringLiteral(".f32"), ScalarType::Float32},
                                                      {QStringLiteral(".f64"), ScalarType::Float64},
                                                      {QStringLiteral(".s8"), ScalarType::Int8},
                                                      {QStringLiteral(".s16"), ScalarType::Int16},
                                                      {QStringLiteral(".s32"), ScalarType::Int32},
                                                      {QStringLiteral(".s64"), ScalarType::Int64},
                                                      {QStringLiteral(".u16"), ScalarType::UInt16},
                                                      {QStringLiteral(".u32"), ScalarType::UInt32},
                                                      {QStringLiteral(".u64"), ScalarType::UInt64},
                                                      {QStringLiteral(".b16"), ScalarType::UInt16},
                                                      {QStringLiteral(".b32"), ScalarType::UInt32},
                                                      {QStringLiteral(".b64"), ScalarType::UInt64}};
    return kTypes.value(ptxType, ScalarType::UInt8);
}

/// "__constant__ float filter, 36 bytes" (the PTX type where the source's was not read).
QString declaration(const ModuleGlobal& g) {
    const QString type = g.sourceType.isEmpty() ? g.ptxType : g.sourceType;
    return QStringLiteral("%1 %2 %3, %4 bytes")
        .arg(g.spaceKeyword(), type, g.name)
        .arg(g.sizeBytes);
}

} // namespace

GlobalSpec defaultGlobalSpec(const ModuleGlobal& global, const QVector<StructType>& structs) {
    GlobalSpec spec;
    spec.name = global.name;
    // The source's type carries the extents ("float[9]"): the element type is before them.
    const QString element = global.sourceType.section(QLatin1Char('['), 0, 0).trimmed();
    std::optional<ValueType> type = cells::typeFromName(element, structs);
    if (!type)
        type = ValueType::of(ptxScalarType(global.ptxType));
    qint64 count = global.ptxCount;
    if (global.sizeBytes > 0) {
        // A declaration whose size is not a whole number of the source's type (a struct the
        // table does not know laid out differently) is offered as its bytes.
        if (global.sizeBytes % type->sizeBytes() != 0)
            type = ValueType::of(ScalarType::UInt8);
        count = global.sizeBytes / type->sizeBytes();
    }
    spec.value.elementType = *type;
    spec.value.count = QString::number(std::max<qint64>(count, 1));
    spec.value.direction =
        global.space == QLatin1String("const") ? Direction::In : Direction::InOut;
    return spec;
}

const ModuleGlobal* GlobalRows::findDeclared(const QString& name) const {
    if (!m_declared)
        return nullptr;
    const QString trimmed = name.trimmed();
    for (const ModuleGlobal& g : *m_declared) {
        if (g.name == trimmed || g.lowered == trimmed)
            return &g;
    }
    return nullptr;
}

void GlobalRows::merge(QVector<GlobalRow> rows) {
    QVector<GlobalRow> merged;
    QSet<QString> matched; // module symbols a row already stands for
    for (GlobalRow& row : rows) {
        const ModuleGlobal* found = findDeclared(row.spec.name);
        // An offered row exists only for a declaration of the project's own (the user's
        // values live in included rows), and only once.
        if (!row.included && (!found || !found->fromProject || matched.contains(found->lowered)))
            continue;
        row.declared = found ? std::optional<ModuleGlobal>(*found) : std::nullopt;
        if (found)
            matched.insert(found->lowered);
        merged << row;
    }
    if (m_declared) {
        for (const ModuleGlobal& g : *m_declared) {
            // A toolkit header's globals are not the user's arguments (ProjectGlobals.h).
            if (g.fromProject && !matched.contains(g.lowered))
                merged << GlobalRow{defaultGlobalSpec(g, m_structs), false, g};
        }
    }
    m_rows = merged;
}

void GlobalRows::setSpecs(const QVector<GlobalSpec>& specs) {
    QVector<GlobalRow> rows;
    QSet<QString> names;
    for (const GlobalSpec& spec : specs) {
        rows << GlobalRow{spec, true, std::nullopt};
        names.insert(spec.name);
    }
    for (const GlobalRow& row : std::as_const(m_rows)) {
        if (!row.included && !names.contains(row.spec.name))
            rows << row;
    }
    merge(rows);
}

void GlobalRows::setDeclared(const std::optional<QVector<ModuleGlobal>>& declared,
                             const QVector<StructType>& structs) {
    m_declared = declared;
    m_structs = structs;
    merge(m_rows);
}

QVector<GlobalSpec> GlobalRows::specs() const {
    QVector<GlobalSpec> specs;
    for (const GlobalRow& row : m_rows) {
        if (row.included)
            specs << row.spec;
    }
    return specs;
}

bool GlobalRows::isStale(int row) const {
    return m_declared && m_rows.at(row).included && !m_rows.at(row).declared;
}

QVariant GlobalRows::text(int row, int column) const {
    const GlobalRow& r = m_rows.at(row);
    const BufferSpec& v = r.spec.value;
    switch (column) {
    case ArgumentTableModel::NameColumn:
        return r.spec.name;
    case ArgumentTableModel::TypeColumn:
        return v.elementType.displayName();
    case ArgumentTableModel::KindColumn:
        // "global" until a compile says which memory space it lives in.
        return r.declared ? r.declared->spaceKeyword() : QStringLiteral("global");
    case ArgumentTableModel::ValueColumn:
        return v.count;
    case ArgumentTableModel::InitColumn:
        return formatInitSpec(v.init);
    case ArgumentTableModel::DirectionColumn:
        return directionName(v.direction);
    case ArgumentTableModel::VerifyColumn:
        return formatVerifySpec(v.verify);
    default:
        return {};
    }
}

QString GlobalRows::toolTip(int row, int column) const {
    const GlobalRow& r = m_rows.at(row);
    switch (column) {
    case ArgumentTableModel::NameColumn:
    case ArgumentTableModel::KindColumn: {
        const QString what = r.declared ? declaration(*r.declared) : tr("A module global");
        if (isStale(row))
            return tr("The last compile declares no __constant__ or __device__ variable of this "
                      "name. Its settings are kept until you remove the row; a run fails "
                      "while it is checked.");
        if (!r.included)
            return tr("%1.\n\nNot set by the run: the kernel sees the module's own initial "
                      "value. Check the box (or edit a cell) to write it before each launch "
                      "and read it back after; it is then saved in the project.")
                .arg(what);
        return tr("%1.\n\nWritten before each launch and read back after (out and inout). "
                  "Uncheck to leave it to the module's own initial value.")
            .arg(what);
    }
    case ArgumentTableModel::ValueColumn:
        return tr("Element count: a number or an expression over integer scalars; count × the "
                  "type's size must be the declaration's size");
    case ArgumentTableModel::InitColumn:
        return tr("%1\n\nzeros | ones | constant V | iota START STEP | uniform LOW HIGH seed=S | "
                  "normal MEAN STDDEV seed=S | file PATH.npy")
            .arg(text(row, column).toString());
    case ArgumentTableModel::VerifyColumn:
        return tr("%1\n\nnone | expression EXPR (inputs, scalars and i) | file PATH.npy, then "
                  "atol=A rtol=R")
            .arg(text(row, column).toString());
    default:
        return {};
    }
}

bool GlobalRows::isEditable(int column) const {
    // The kind is the module's (the declaration's memory space), not a choice.
    return column != ArgumentTableModel::KindColumn;
}

bool GlobalRows::applyEdit(int row, int column, const QString& text,
                           const QVector<StructType>& structs) {
    GlobalRow edited = m_rows.at(row);
    BufferSpec& v = edited.spec.value;
    switch (column) {
    case ArgumentTableModel::NameColumn:
        edited.spec.name = text.trimmed();
        break;
    case ArgumentTableModel::TypeColumn: {
        const auto type = cells::typeFromName(text, structs);
        if (!type)
            return false;
        v.elementType = *type;
        break;
    }
    case ArgumentTableModel::ValueColumn:
        v.count = text.trimmed();
        break;
    case ArgumentTableModel::InitColumn: {
        const auto init = parseInitSpec(text, nullptr);
        if (!init)
            return false;
        v.init = *init;
        break;
    }
    case ArgumentTableModel::DirectionColumn: {
        const auto d = directionFromName(text.trimmed().toLower());
        if (!d)
            return false;
        v.direction = *d;
        break;
    }
    case ArgumentTableModel::VerifyColumn: {
        const auto verify = parseVerifySpec(text, nullptr);
        if (!verify)
            return false;
        v.verify = *verify;
        break;
    }
    default:
        return false;
    }
    edited.included = true;
    edited.declared = std::nullopt;
    if (const ModuleGlobal* found = findDeclared(edited.spec.name))
        edited.declared = *found;
    m_rows[row] = edited;
    return true;
}

bool GlobalRows::setIncluded(int row, bool included) {
    if (m_rows.at(row).included == included)
        return false;
    m_rows[row].included = included;
    return true;
}

void GlobalRows::remove(int row, int count) {
    m_rows.remove(row, count);
}

QString GlobalRows::problem(int row, int column, const QVector<ArgumentSpec>& arguments) const {
    const GlobalRow& r = m_rows.at(row);
    if (!r.included)
        return {};
    const BufferSpec& v = r.spec.value;
    switch (column) {
    case ArgumentTableModel::NameColumn: {
        if (r.spec.name.trimmed().isEmpty())
            return tr("Name the __constant__ or __device__ variable");
        if (isStale(row)) {
            QStringList names;
            for (const ModuleGlobal& g : *m_declared)
                names << g.name;
            return tr("The last compile declares no __constant__ or __device__ variable '%1' "
                      "(it declares: %2). Its settings are kept until you remove the row.")
                .arg(r.spec.name, names.isEmpty() ? tr("none") : names.join(QStringLiteral(", ")));
        }
        return {};
    }
    case ArgumentTableModel::ValueColumn: {
        QString why;
        const std::optional<qint64> count = resolveCount(v.count, arguments, &why);
        if (!count)
            return why;
        const qint64 bytes = *count * v.elementType.sizeBytes();
        if (r.declared && r.declared->sizeBytes > 0 && bytes != r.declared->sizeBytes)
            return tr("%1 × %2 is %3 bytes, but the module's %4")
                .arg(*count)
                .arg(v.elementType.displayName())
                .arg(bytes)
                .arg(declaration(*r.declared));
        return {};
    }
    case ArgumentTableModel::InitColumn:
        return v.init.problem();
    case ArgumentTableModel::VerifyColumn:
        if (v.verify.kind == VerifySpec::Kind::None)
            return {};
        if (v.direction == Direction::In)
            return tr("Only out and inout globals are read back and verified: '%1' is an input.")
                .arg(r.spec.name);
        if (v.verify.kind == VerifySpec::Kind::Reference) {
            // The loader's rule (GlobalSpec::problem): a module has one copy of a global.
            GlobalSpec probe;
            probe.name = r.spec.name.isEmpty() ? QStringLiteral("global") : r.spec.name;
            probe.value.verify = v.verify;
            return probe.problem();
        }
        return v.verify.problem();
    default:
        return {};
    }
}

QStringList GlobalRows::problems(const QVector<ArgumentSpec>& arguments) const {
    static const std::pair<int, const char*> kColumns[] = {
        {ArgumentTableModel::NameColumn, QT_TRANSLATE_NOOP("kernelpad::GlobalRows", "name")},
        {ArgumentTableModel::ValueColumn, QT_TRANSLATE_NOOP("kernelpad::GlobalRows", "count")},
        {ArgumentTableModel::InitColumn, QT_TRANSLATE_NOOP("kernelpad::GlobalRows", "init")},
        {ArgumentTableModel::VerifyColumn, QT_TRANSLATE_NOOP("kernelpad::GlobalRows", "verify")}};
    QStringList list;
    for (int row = 0; row < m_rows.size(); ++row) {
        for (const auto& [column, part] : kColumns) {
            const QString problem = this->problem(row, column, arguments);
            if (!problem.isEmpty())
                list << tr("Global '%1', %2: %3").arg(m_rows.at(row).spec.name, tr(part), problem);
        }
    }
    return list;
}

} // namespace kernelpad
