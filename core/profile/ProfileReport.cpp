#include "core/profile/ProfileReport.h"

#include "core/io/JsonFields.h"

#include <QJsonArray>
#include <QLocale>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <utility>

namespace kernelpad {
namespace {

// Fields of the JSON form. Absent numbers are left out rather than written as null, so a
// report from a basic set reads as short as it is.

void putOptional(QJsonObject* o, const QString& key, const std::optional<double>& value) {
    if (value && std::isfinite(*value))
        o->insert(key, *value);
}

bool readOptional(const json::FieldReader& fields, const QString& key, std::optional<double>* out) {
    out->reset();
    if (!fields.has(key) || fields.object().value(key).isNull())
        return true;
    double v = 0;
    if (!fields.readNumber(key, &v, json::Presence::Required))
        return false;
    *out = v;
    return true;
}

bool readCount(const json::FieldReader& fields, const QString& key, qint64* out) {
    return fields.readWholeNumber(key, out, json::Presence::Optional,
                                  {0, kExactDoubleIntegerLimit - 1});
}

/// Reads the array under `key`, each element an object given to `readOne` with its path.
template <typename T>
bool readList(
    const json::FieldReader& fields, const QString& key, QList<T>* out,
    const std::function<std::optional<T>(const QJsonObject&, QString*, const QString&)>& readOne,
    QString* error) {
    out->clear();
    QJsonArray a;
    if (!fields.readArray(key, &a))
        return false;
    for (qsizetype i = 0; i < a.size(); ++i) {
        const QString path = json::indexPath(fields.path(key), i);
        if (!a[i].isObject())
            return fields.fail(json::typeError(path, QStringLiteral("an object"), a[i]));
        std::optional<T> one = readOne(a[i].toObject(), error, path);
        if (!one)
            return false;
        out->append(std::move(*one));
    }
    return true;
}

bool readStrings(const json::FieldReader& fields, const QString& key, QStringList* out) {
    out->clear();
    QJsonArray a;
    if (!fields.readArray(key, &a))
        return false;
    for (qsizetype i = 0; i < a.size(); ++i) {
        if (!a[i].isString())
            return fields.fail(json::typeError(json::indexPath(fields.path(key), i),
                                               QStringLiteral("a string"), a[i]));
        out->append(a[i].toString());
    }
    return true;
}

QJsonArray stringsJson(const QStringList& list) {
    QJsonArray a;
    for (const QString& s : list)
        a.append(s);
    return a;
}

template <typename T> QJsonArray listJson(const QList<T>& list, QJsonObject (*one)(const T&)) {
    QJsonArray a;
    for (const T& item : list)
        a.append(one(item));
    return a;
}

// --- SpeedOfLight and Roofline: flat objects of optional numbers -------------------------

using SolField = std::optional<double> SpeedOfLight::*;
constexpr std::array<std::pair<const char*, SolField>, 15> kSolFields{{
    {"computeThroughputPct", &SpeedOfLight::computeThroughputPct},
    {"memoryThroughputPct", &SpeedOfLight::memoryThroughputPct},
    {"dramThroughputPct", &SpeedOfLight::dramThroughputPct},
    {"l1ThroughputPct", &SpeedOfLight::l1ThroughputPct},
    {"l2ThroughputPct", &SpeedOfLight::l2ThroughputPct},
    {"achievedOccupancyPct", &SpeedOfLight::achievedOccupancyPct},
    {"theoreticalOccupancyPct", &SpeedOfLight::theoreticalOccupancyPct},
    {"dramBytes", &SpeedOfLight::dramBytes},
    {"l2Bytes", &SpeedOfLight::l2Bytes},
    {"l1Bytes", &SpeedOfLight::l1Bytes},
    {"l1HitRatePct", &SpeedOfLight::l1HitRatePct},
    {"l2HitRatePct", &SpeedOfLight::l2HitRatePct},
    {"smFrequencyHz", &SpeedOfLight::smFrequencyHz},
    {"dramFrequencyHz", &SpeedOfLight::dramFrequencyHz},
    {"elapsedCycles", &SpeedOfLight::elapsedCycles},
}};

using RoofField = std::optional<double> Roofline::*;
constexpr std::array<std::pair<const char*, RoofField>, 7> kRoofFields{{
    {"achievedFp32FlopsPerSecond", &Roofline::achievedFp32FlopsPerSecond},
    {"achievedFp64FlopsPerSecond", &Roofline::achievedFp64FlopsPerSecond},
    {"dramBytesPerSecond", &Roofline::dramBytesPerSecond},
    {"arithmeticIntensity", &Roofline::arithmeticIntensity},
    {"peakFp32FlopsPerSecond", &Roofline::peakFp32FlopsPerSecond},
    {"peakFp64FlopsPerSecond", &Roofline::peakFp64FlopsPerSecond},
    {"peakDramBytesPerSecond", &Roofline::peakDramBytesPerSecond},
}};

template <typename S, typename F, size_t N>
QJsonObject optionalsJson(const S& s, const std::array<std::pair<const char*, F>, N>& fields) {
    QJsonObject o;
    for (const auto& [key, member] : fields)
        putOptional(&o, QString::fromLatin1(key), s.*member);
    return o;
}

template <typename S, typename F, size_t N>
bool readOptionals(const QJsonObject& json, QString* error, const QString& path, S* s,
                   const std::array<std::pair<const char*, F>, N>& fields) {
    const json::FieldReader reader(json, error, path);
    for (const auto& [key, member] : fields)
        if (!readOptional(reader, QString::fromLatin1(key), &(s->*member)))
            return false;
    return true;
}

// --- the list elements ------------------------------------------------------------------

QJsonObject metricJson(const ProfileMetric& m) {
    QJsonObject o{{QStringLiteral("section"), m.section},
                  {QStringLiteral("name"), m.name},
                  {QStringLiteral("unit"), m.unit},
                  {QStringLiteral("text"), m.text}};
    putOptional(&o, QStringLiteral("value"), m.value);
    return o;
}

std::optional<ProfileMetric> readMetric(const QJsonObject& json, QString* error,
                                        const QString& path) {
    const json::FieldReader f(json, error, path);
    ProfileMetric m;
    if (!f.readString(QStringLiteral("section"), &m.section) ||
        !f.readString(QStringLiteral("name"), &m.name, json::Presence::Required) ||
        !f.readString(QStringLiteral("unit"), &m.unit) ||
        !f.readString(QStringLiteral("text"), &m.text) ||
        !readOptional(f, QStringLiteral("value"), &m.value))
        return std::nullopt;
    return m;
}

QJsonObject ruleJson(const ProfileRule& r) {
    QJsonObject o{{QStringLiteral("section"), r.section},
                  {QStringLiteral("name"), r.name},
                  {QStringLiteral("type"), r.type},
                  {QStringLiteral("description"), r.description},
                  {QStringLiteral("speedupType"), r.speedupType}};
    putOptional(&o, QStringLiteral("estimatedSpeedup"), r.estimatedSpeedup);
    return o;
}

std::optional<ProfileRule> readRule(const QJsonObject& json, QString* error, const QString& path) {
    const json::FieldReader f(json, error, path);
    ProfileRule r;
    if (!f.readString(QStringLiteral("section"), &r.section) ||
        !f.readString(QStringLiteral("name"), &r.name, json::Presence::Required) ||
        !f.readString(QStringLiteral("type"), &r.type) ||
        !f.readString(QStringLiteral("description"), &r.description) ||
        !f.readString(QStringLiteral("speedupType"), &r.speedupType) ||
        !readOptional(f, QStringLiteral("estimatedSpeedup"), &r.estimatedSpeedup))
        return std::nullopt;
    return r;
}

QJsonObject stallJson(const StallReason& s) {
    return QJsonObject{{QStringLiteral("name"), s.name},
                       {QStringLiteral("description"), s.description},
                       {QStringLiteral("samples"), double(s.samples)},
                       {QStringLiteral("notIssuedSamples"), double(s.notIssuedSamples)}};
}

std::optional<StallReason> readStall(const QJsonObject& json, QString* error, const QString& path) {
    const json::FieldReader f(json, error, path);
    StallReason s;
    if (!f.readString(QStringLiteral("name"), &s.name, json::Presence::Required) ||
        !f.readString(QStringLiteral("description"), &s.description) ||
        !readCount(f, QStringLiteral("samples"), &s.samples) ||
        !readCount(f, QStringLiteral("notIssuedSamples"), &s.notIssuedSamples))
        return std::nullopt;
    return s;
}

QJsonObject lineStallJson(const LineStall& s) {
    return QJsonObject{{QStringLiteral("name"), s.name},
                       {QStringLiteral("samples"), double(s.samples)}};
}

std::optional<LineStall> readLineStall(const QJsonObject& json, QString* error,
                                       const QString& path) {
    const json::FieldReader f(json, error, path);
    LineStall s;
    if (!f.readString(QStringLiteral("name"), &s.name, json::Presence::Required) ||
        !readCount(f, QStringLiteral("samples"), &s.samples))
        return std::nullopt;
    return s;
}

QJsonObject sassJson(const ProfileSassRow& s) {
    return QJsonObject{{QStringLiteral("address"), s.address},
                       {QStringLiteral("instruction"), s.instruction},
                       {QStringLiteral("stallSamples"), double(s.stallSamples)},
                       {QStringLiteral("instructionsExecuted"), double(s.instructionsExecuted)}};
}

std::optional<ProfileSassRow> readSass(const QJsonObject& json, QString* error,
                                       const QString& path) {
    const json::FieldReader f(json, error, path);
    ProfileSassRow s;
    if (!f.readString(QStringLiteral("address"), &s.address) ||
        !f.readString(QStringLiteral("instruction"), &s.instruction) ||
        !readCount(f, QStringLiteral("stallSamples"), &s.stallSamples) ||
        !readCount(f, QStringLiteral("instructionsExecuted"), &s.instructionsExecuted))
        return std::nullopt;
    return s;
}

using LineCount = qint64 LineProfile::*;
constexpr std::array<std::pair<const char*, LineCount>, 10> kLineCounts{{
    {"globalRequests", &LineProfile::globalRequests},
    {"stallSamples", &LineProfile::stallSamples},
    {"notIssuedStallSamples", &LineProfile::notIssuedStallSamples},
    {"instructionsExecuted", &LineProfile::instructionsExecuted},
    {"l2SectorsGlobal", &LineProfile::l2SectorsGlobal},
    {"l2SectorsGlobalIdeal", &LineProfile::l2SectorsGlobalIdeal},
    {"l2SectorsGlobalExcessive", &LineProfile::l2SectorsGlobalExcessive},
    {"sharedWavefronts", &LineProfile::sharedWavefronts},
    {"sharedWavefrontsIdeal", &LineProfile::sharedWavefrontsIdeal},
    {"sharedWavefrontsExcessive", &LineProfile::sharedWavefrontsExcessive},
}};

QJsonObject lineJson(const LineProfile& l) {
    QJsonObject o{{QStringLiteral("line"), l.line},
                  {QStringLiteral("sharedConflictsNWay"), l.sharedConflictsNWay},
                  {QStringLiteral("uncoalesced"), l.uncoalesced},
                  {QStringLiteral("bankConflicts"), l.bankConflicts},
                  {QStringLiteral("stalls"), listJson(l.stalls, &lineStallJson)},
                  {QStringLiteral("sass"), listJson(l.sass, &sassJson)}};
    for (const auto& [key, member] : kLineCounts)
        o.insert(QString::fromLatin1(key), double(l.*member));
    return o;
}

std::optional<LineProfile> readLine(const QJsonObject& json, QString* error, const QString& path) {
    const json::FieldReader f(json, error, path);
    LineProfile l;
    if (!f.readInt(QStringLiteral("line"), &l.line, json::Presence::Required,
                   {1, std::numeric_limits<int>::max()}) ||
        !f.readNumber(QStringLiteral("sharedConflictsNWay"), &l.sharedConflictsNWay) ||
        !f.readBool(QStringLiteral("uncoalesced"), &l.uncoalesced) ||
        !f.readBool(QStringLiteral("bankConflicts"), &l.bankConflicts))
        return std::nullopt;
    for (const auto& [key, member] : kLineCounts)
        if (!readCount(f, QString::fromLatin1(key), &(l.*member)))
            return std::nullopt;
    if (!readList<LineStall>(f, QStringLiteral("stalls"), &l.stalls, &readLineStall, error) ||
        !readList<ProfileSassRow>(f, QStringLiteral("sass"), &l.sass, &readSass, error))
        return std::nullopt;
    return l;
}

QString grouped(qint64 n) {
    QLocale c = QLocale::c();
    c.setNumberOptions(QLocale::DefaultNumberOptions);
    return c.toString(n);
}

// One sentence per reason, after the Nsight Compute profiling guide's table of warp stall
// reasons, in the raw page's names (canonicalStallName() maps the source page's).
constexpr std::array<std::pair<const char*, const char*>, 21> kStallDescriptions{{
    {"barrier", "waiting at __syncthreads() (or another barrier) for the other warps of the "
                "block"},
    {"branch_resolving", "waiting for a branch target to be computed or the warp to reconverge"},
    {"dispatch_stall", "ready, but the dispatcher could not issue (a pipeline conflict)"},
    {"drain", "waiting at the kernel's exit for its memory writes to drain"},
    {"imc_miss", "waiting for the immediate constant cache (a constant-memory miss)"},
    {"lg_throttle", "waiting for the local/global memory queue to accept a load or store (too "
                    "many outstanding memory instructions)"},
    {"long_scoreboard", "waiting for a global, local or texture load to return (memory "
                        "latency)"},
    {"math_pipe_throttle", "waiting for a math pipeline (FMA, ALU, FP64, ...) to be free"},
    {"membar", "waiting at a memory fence (__threadfence())"},
    {"mio_throttle", "waiting for the memory input/output queue: shared memory, special math or "
                     "dynamic branches"},
    {"misc", "waiting for a reason ncu counts as miscellaneous"},
    {"no_instructions", "waiting for instructions to be fetched (an instruction cache miss or "
                        "a jump)"},
    {"not_selected", "ready, but another warp was issued instead (there is enough parallelism)"},
    {"selected", "issuing an instruction (not a stall: the warp was chosen)"},
    {"short_scoreboard", "waiting for shared memory or a special-function result (MUFU) to "
                         "return"},
    {"sleeping", "sleeping (__nanosleep() or a yield)"},
    {"tex_throttle", "waiting for the texture unit's queue to accept an instruction"},
    {"wait", "waiting a fixed number of cycles for a dependency the compiler scheduled"},
    {"gmma", "waiting for a warpgroup matrix multiply (wgmma) to be issued"},
    {"warpgroup_arrive", "waiting at a warpgroup arrive for the warpgroup's other warps"},
    {"tmem", "waiting for tensor memory"},
}};

constexpr std::array<std::pair<ProfileStatus, const char*>, 8> kStatusNames{{
    {ProfileStatus::Ok, "ok"},
    {ProfileStatus::NcuMissing, "ncu-missing"},
    {ProfileStatus::CounterPermission, "counter-permission"},
    {ProfileStatus::NoKernelProfiled, "no-kernel-profiled"},
    {ProfileStatus::KernelFailed, "kernel-failed"},
    {ProfileStatus::Timeout, "timeout"},
    {ProfileStatus::Cancelled, "cancelled"},
    {ProfileStatus::Failed, "failed"},
}};

} // namespace

QString stallReasonDescription(const QString& name) {
    for (const auto& [key, text] : kStallDescriptions)
        if (name == QLatin1String(key))
            return QString::fromLatin1(text);
    return {};
}

void flagLine(LineProfile* line) {
    line->uncoalesced = line->l2SectorsGlobalIdeal > 0 &&
                        double(line->l2SectorsGlobal) >
                            kUncoalescedSectorRatio * double(line->l2SectorsGlobalIdeal);
    line->bankConflicts = line->sharedConflictsNWay > 1.0 || line->sharedWavefrontsExcessive > 0;
}

QStringList LineProfile::flagMessages() const {
    QStringList out;
    if (uncoalesced)
        out << QStringLiteral("uncoalesced global access: %1 sectors where %2 are ideal (%3x)")
                   .arg(grouped(l2SectorsGlobal), grouped(l2SectorsGlobalIdeal),
                        QString::number(double(l2SectorsGlobal) / double(l2SectorsGlobalIdeal), 'f',
                                        1));
    if (bankConflicts)
        out << QStringLiteral("shared-memory bank conflicts: %1-way, %2 excessive wavefronts")
                   .arg(QString::number(sharedConflictsNWay, 'g', 4),
                        grouped(sharedWavefrontsExcessive));
    return out;
}

const LineProfile* ProfileReport::lineProfile(int line) const {
    for (const LineProfile& l : lines)
        if (l.line == line)
            return &l;
    return nullptr;
}

QList<LineProfile> ProfileReport::flaggedLines() const {
    QList<LineProfile> out;
    for (const LineProfile& l : lines)
        if (l.uncoalesced || l.bankConflicts)
            out.append(l);
    std::stable_sort(out.begin(), out.end(),
                     [](const LineProfile& a, const LineProfile& b) { return a.line < b.line; });
    return out;
}

QJsonObject ProfileReport::toJson() const {
    QJsonObject o{{QStringLiteral("kernel"), kernel},
                  {QStringLiteral("device"), device},
                  {QStringLiteral("set"), set},
                  {QStringLiteral("sourceName"), sourceName},
                  {QStringLiteral("blockSize"), blockSize},
                  {QStringLiteral("gridSize"), gridSize},
                  {QStringLiteral("speedOfLight"), optionalsJson(speedOfLight, kSolFields)},
                  {QStringLiteral("stalls"), listJson(stalls, &stallJson)},
                  {QStringLiteral("lines"), listJson(lines, &lineJson)},
                  {QStringLiteral("roofline"), optionalsJson(roofline, kRoofFields)},
                  {QStringLiteral("hierarchicalRoofline"), hierarchy.toJson()},
                  {QStringLiteral("metrics"), listJson(metrics, &metricJson)},
                  {QStringLiteral("rules"), listJson(rules, &ruleJson)},
                  {QStringLiteral("ncuVersion"), ncuVersion},
                  {QStringLiteral("commandLine"), stringsJson(commandLine)},
                  {QStringLiteral("warnings"), stringsJson(warnings)}};
    putOptional(&o, QStringLiteral("durationNs"), durationNs);
    return o;
}

std::optional<ProfileReport> ProfileReport::fromJson(const QJsonObject& json, QString* error) {
    const json::FieldReader f(json, error);
    ProfileReport r;
    for (const auto& [key, target] :
         {std::pair{QStringLiteral("kernel"), &r.kernel},
          std::pair{QStringLiteral("device"), &r.device}, std::pair{QStringLiteral("set"), &r.set},
          std::pair{QStringLiteral("sourceName"), &r.sourceName},
          std::pair{QStringLiteral("blockSize"), &r.blockSize},
          std::pair{QStringLiteral("gridSize"), &r.gridSize},
          std::pair{QStringLiteral("ncuVersion"), &r.ncuVersion}})
        if (!f.readString(key, target))
            return std::nullopt;
    if (!readOptional(f, QStringLiteral("durationNs"), &r.durationNs))
        return std::nullopt;
    QJsonObject sol;
    QJsonObject roof;
    if (!f.readObject(QStringLiteral("speedOfLight"), &sol) ||
        !readOptionals(sol, error, f.path(QStringLiteral("speedOfLight")), &r.speedOfLight,
                       kSolFields) ||
        !f.readObject(QStringLiteral("roofline"), &roof) ||
        !readOptionals(roof, error, f.path(QStringLiteral("roofline")), &r.roofline, kRoofFields))
        return std::nullopt;
    // A report saved before the hierarchical roofline has none: its values stay absent.
    QJsonObject hierarchy;
    if (!f.readObject(QStringLiteral("hierarchicalRoofline"), &hierarchy) ||
        !HierarchicalRoofline::fromJson(hierarchy, f.path(QStringLiteral("hierarchicalRoofline")),
                                        &r.hierarchy, error))
        return std::nullopt;
    if (!readList<StallReason>(f, QStringLiteral("stalls"), &r.stalls, &readStall, error) ||
        !readList<LineProfile>(f, QStringLiteral("lines"), &r.lines, &readLine, error) ||
        !readList<ProfileMetric>(f, QStringLiteral("metrics"), &r.metrics, &readMetric, error) ||
        !readList<ProfileRule>(f, QStringLiteral("rules"), &r.rules, &readRule, error) ||
        !readStrings(f, QStringLiteral("commandLine"), &r.commandLine) ||
        !readStrings(f, QStringLiteral("warnings"), &r.warnings))
        return std::nullopt;
    return r;
}

QString profileSetName(ProfileSet set) {
    return set == ProfileSet::Full ? QStringLiteral("full") : QStringLiteral("basic");
}

std::optional<ProfileSet> profileSetFromName(const QString& name) {
    if (name == QLatin1String("basic"))
        return ProfileSet::Basic;
    if (name == QLatin1String("full"))
        return ProfileSet::Full;
    return std::nullopt;
}

QString profileStatusName(ProfileStatus status) {
    for (const auto& [s, name] : kStatusNames)
        if (s == status)
            return QString::fromLatin1(name);
    return QStringLiteral("failed");
}

bool operator==(const ProfileMetric& a, const ProfileMetric& b) {
    return a.section == b.section && a.name == b.name && a.unit == b.unit && a.text == b.text &&
           a.value == b.value;
}

bool operator==(const ProfileRule& a, const ProfileRule& b) {
    return a.section == b.section && a.name == b.name && a.type == b.type &&
           a.description == b.description && a.speedupType == b.speedupType &&
           a.estimatedSpeedup == b.estimatedSpeedup;
}

bool operator==(const SpeedOfLight& a, const SpeedOfLight& b) {
    return std::all_of(kSolFields.begin(), kSolFields.end(),
                       [&](const auto& f) { return a.*(f.second) == b.*(f.second); });
}

bool operator==(const StallReason& a, const StallReason& b) {
    return a.name == b.name && a.description == b.description && a.samples == b.samples &&
           a.notIssuedSamples == b.notIssuedSamples;
}

bool operator==(const ProfileSassRow& a, const ProfileSassRow& b) {
    return a.address == b.address && a.instruction == b.instruction &&
           a.stallSamples == b.stallSamples && a.instructionsExecuted == b.instructionsExecuted;
}

bool operator==(const LineStall& a, const LineStall& b) {
    return a.name == b.name && a.samples == b.samples;
}

bool operator==(const LineProfile& a, const LineProfile& b) {
    return a.line == b.line &&
           std::all_of(kLineCounts.begin(), kLineCounts.end(),
                       [&](const auto& f) { return a.*(f.second) == b.*(f.second); }) &&
           a.sharedConflictsNWay == b.sharedConflictsNWay && a.uncoalesced == b.uncoalesced &&
           a.bankConflicts == b.bankConflicts && a.stalls == b.stalls && a.sass == b.sass;
}

bool operator==(const Roofline& a, const Roofline& b) {
    return std::all_of(kRoofFields.begin(), kRoofFields.end(),
                       [&](const auto& f) { return a.*(f.second) == b.*(f.second); });
}

bool operator==(const ProfileReport& a, const ProfileReport& b) {
    return a.kernel == b.kernel && a.device == b.device && a.set == b.set &&
           a.sourceName == b.sourceName && a.durationNs == b.durationNs &&
           a.blockSize == b.blockSize && a.gridSize == b.gridSize &&
           a.speedOfLight == b.speedOfLight && a.stalls == b.stalls && a.lines == b.lines &&
           a.roofline == b.roofline && a.hierarchy == b.hierarchy && a.metrics == b.metrics &&
           a.rules == b.rules && a.ncuVersion == b.ncuVersion && a.commandLine == b.commandLine &&
           a.warnings == b.warnings;
}

} // namespace kernelpad
