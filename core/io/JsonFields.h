#pragma once
// Reading the fields of a JSON object with messages that name the field: the one helper of
// every loader (.kpad projects, arguments, timing, compiler options, run requests, the runner
// protocol), so that a wrong value reads the same wherever it is
// ("arguments[2].buffer.count: expected a whole number, got a string").

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>
#include <QVector>

#include <array>
#include <functional>
#include <limits>
#include <optional>

namespace kernelpad {

/// 2^53: from here on a double (a JSON number, a muParser result) no longer holds every
/// integer, so 2^53 + 1 written as a JSON number reads back as 2^53.
inline constexpr qint64 kExactDoubleIntegerLimit = qint64(1) << 53;

/// True when `value` is an integer that a double is known to hold exactly: |value| < 2^53.
/// 2^53 itself is refused because it is also what 2^53 + 1 rounds to.
[[nodiscard]] bool isExactDoubleInteger(double value);

namespace json {

/// A value's JSON type with its article, as messages say it: "a boolean", "a number",
/// "a string", "an array", "an object", "null"; "missing" for an absent field.
[[nodiscard]] QString typeName(const QJsonValue& value);

/// `key` under `parent`: "timing.repetitions", or "repetitions" when `parent` is empty.
[[nodiscard]] QString fieldPath(const QString& parent, const QString& key);
/// Element `index` of the array at `parent`: "arguments[2]".
[[nodiscard]] QString indexPath(const QString& parent, qsizetype index);

/// "<path>: expected <wanted>, got <typeName(got)>", the one wording of a wrong type.
[[nodiscard]] QString typeError(const QString& path, const QString& wanted, const QJsonValue& got);
/// "<path>: missing".
[[nodiscard]] QString missingError(const QString& path);
/// "<path>: expected one of "a", "b", got 'c'", for a name outside a fixed set.
[[nodiscard]] QString choiceError(const QString& path, const QStringList& names,
                                  const QString& got);

/// Whether a field must be there. An optional field that is absent leaves the output as it
/// was (the default); NullIsAbsent also takes null for absent (for writers that write null).
enum class Presence { Optional, Required, NullIsAbsent };

/// What null means where a number is read. Result JSON writes NaN and infinity as null
/// (JsonValues.h, fromDouble), so there null is a measurement that has no value.
enum class NullNumber { Refused, IsNaN };

/// The inclusive range a whole number must fall in; by default every integer a JSON number
/// holds exactly.
struct WholeRange {
    qint64 min = -(kExactDoubleIntegerLimit - 1);
    qint64 max = kExactDoubleIntegerLimit - 1;
};

/// Reads the fields of one object. Each read returns false when the field is missing but
/// required or present with the wrong type or value, and then sets the error (when one was
/// given) to a message that starts with the field's path.
class FieldReader {
public:
    /// `path` is where `object` sits ("arguments[2].buffer"), empty at the top.
    explicit FieldReader(const QJsonObject& object, QString* error, QString path = {});

    [[nodiscard]] const QJsonObject& object() const { return m_object; }
    /// The field's full path, for messages of the caller's own rules.
    [[nodiscard]] QString path(const QString& key) const { return fieldPath(m_path, key); }
    /// True when `key` is there (null counts as there).
    [[nodiscard]] bool has(const QString& key) const { return m_object.contains(key); }

    bool readString(const QString& key, QString* out, Presence presence = Presence::Optional) const;
    bool readBool(const QString& key, bool* out, Presence presence = Presence::Optional) const;
    /// A finite number; with NullNumber::IsNaN, null reads as NaN (a present value: Required
    /// is satisfied by null, and NullIsAbsent is not meant for it).
    bool readNumber(const QString& key, double* out, Presence presence = Presence::Optional,
                    NullNumber null = NullNumber::Refused) const;
    /// An integer that a JSON number holds exactly (below 2^53 in magnitude) and that lies in
    /// `range`.
    bool readWholeNumber(const QString& key, qint64* out, Presence presence = Presence::Optional,
                         WholeRange range = {}) const;
    /// As readWholeNumber, for an int field; the range is at most int's.
    bool readInt(const QString& key, int* out, Presence presence = Presence::Optional,
                 WholeRange range = {std::numeric_limits<int>::min(),
                                     std::numeric_limits<int>::max()}) const;
    bool readArray(const QString& key, QJsonArray* out,
                   Presence presence = Presence::Optional) const;
    bool readObject(const QString& key, QJsonObject* out,
                    Presence presence = Presence::Optional) const;

    /// An array of numbers; an element's message names it ("timesMs[3]: expected a number,
    /// got a string"). `null` as for readNumber.
    bool readNumbers(const QString& key, QVector<double>* out,
                     Presence presence = Presence::Optional,
                     NullNumber null = NullNumber::Refused) const;
    /// An array of strings.
    bool readStrings(const QString& key, QStringList* out,
                     Presence presence = Presence::Optional) const;
    /// Exactly three whole numbers in `range`, as [x, y, z].
    bool readDims(const QString& key, std::array<int, 3>* out,
                  Presence presence = Presence::Optional,
                  WholeRange range = {0, std::numeric_limits<int>::max()}) const;
    /// A string that must be one of `names`.
    bool readChoice(const QString& key, const QStringList& names, QString* out,
                    Presence presence = Presence::Optional) const;
    /// An array of objects, each handed to `each` as a reader placed at its path
    /// ("kernels[2]") that reports through the same error; stops at the first element that
    /// is not an object or that `each` refuses.
    bool readObjects(const QString& key, const std::function<bool(const FieldReader&)>& each,
                     Presence presence = Presence::Optional) const;
    /// A reader for `object`, found under `key`, that reports through the same error with
    /// its fields' paths under this one ("timing.minMs").
    [[nodiscard]] FieldReader nested(const QString& key, const QJsonObject& object) const {
        return FieldReader(object, m_error, path(key));
    }
    /// The error this reader reports through (may be null), for a nested type's own reader.
    [[nodiscard]] QString* error() const { return m_error; }
    /// Where the object sits ("arguments[2].buffer"), empty at the top.
    [[nodiscard]] const QString& where() const { return m_path; }

    /// The same reads into std::optional: an absent field leaves it empty.
    bool readString(const QString& key, std::optional<QString>* out,
                    Presence presence = Presence::Optional) const;
    bool readBool(const QString& key, std::optional<bool>* out,
                  Presence presence = Presence::Optional) const;
    bool readInt(const QString& key, std::optional<int>* out,
                 Presence presence = Presence::Optional,
                 WholeRange range = {std::numeric_limits<int>::min(),
                                     std::numeric_limits<int>::max()}) const;

    /// Sets the error to `message` and returns false, for the caller's own rules.
    bool fail(const QString& message) const;

private:
    /// The value under `key`, or nullopt (with *ok saying whether that is fine) when it is
    /// absent.
    std::optional<QJsonValue> present(const QString& key, Presence presence, bool* ok) const;
    /// As present(), for a field that must be an array.
    std::optional<QJsonArray> presentArray(const QString& key, Presence presence, bool* ok) const;

    QJsonObject m_object;
    QString* m_error;
    QString m_path;
};

/// Why `value` is not a whole number in `range`, or empty; `path` names it. The rule of
/// FieldReader::readWholeNumber, for array elements and values read by hand.
[[nodiscard]] QString wholeNumberProblem(const QString& path, const QJsonValue& value,
                                         WholeRange range = {});
/// Why `value` is not a finite number (or, with NullNumber::IsNaN, null), or empty.
[[nodiscard]] QString numberProblem(const QString& path, const QJsonValue& value,
                                    NullNumber null = NullNumber::Refused);

} // namespace json

} // namespace kernelpad
