#include "ui/models/ArgumentCells.h"

#include "core/launch/ArgumentText.h"
#include "core/launch/TextureArgument.h"
#include "ui/models/ArgumentTableModel.h"

#include <QPainter>
#include <QPolygonF>

namespace kernelpad::cells {

namespace {

/// A texture or surface row: its format and extent where a buffer has type and count (both
/// edited in the TextureDialog), then its contents as a buffer's.
QVariant imageDisplay(const ArgumentSpec& arg, int column) {
    const bool surface = arg.kind == ArgumentSpec::Kind::Surface;
    switch (column) {
    case ArgumentTableModel::NameColumn:
        return arg.name;
    case ArgumentTableModel::TypeColumn:
        return arg.texture.formatName();
    case ArgumentTableModel::KindColumn:
        return surface ? QStringLiteral("surface") : QStringLiteral("texture");
    case ArgumentTableModel::ValueColumn:
        return arg.texture.extentText();
    case ArgumentTableModel::InitColumn:
        return formatInitSpec(arg.buffer.init);
    case ArgumentTableModel::DirectionColumn:
        return directionName(arg.buffer.direction);
    case ArgumentTableModel::VerifyColumn:
        return surface ? formatVerifySpec(arg.buffer.verify) : QString();
    default:
        return {};
    }
}

/// A tensor map row: the buffer and the map's shape (edited in the TensorMapDialog).
QVariant tensorMapDisplay(const ArgumentSpec& arg, int column) {
    const TensorMapSpec& map = arg.tensorMap;
    switch (column) {
    case ArgumentTableModel::NameColumn:
        return arg.name;
    case ArgumentTableModel::TypeColumn:
        return QStringLiteral("CUtensorMap");
    case ArgumentTableModel::KindColumn:
        return QStringLiteral("tensorMap");
    case ArgumentTableModel::ValueColumn: {
        QString text =
            QStringLiteral("%1 [%2]").arg(map.buffer, map.globalDims.join(QStringLiteral(" x ")));
        if (map.mode == TensorMapMode::Tiled) {
            QStringList box;
            for (int b : map.boxDims)
                box << QString::number(b);
            text += QStringLiteral(", box %1").arg(box.join(QStringLiteral(" x ")));
        } else {
            text += QStringLiteral(", im2col");
        }
        if (map.swizzle != TensorMapSwizzle::None)
            text += QStringLiteral(", swizzle %1").arg(tensorMapSwizzleName(map.swizzle));
        return text;
    }
    default:
        return {};
    }
}

} // namespace

QPixmap errorPixmap() {
    static const QPixmap pixmap = [] {
        QPixmap p(12, 12);
        p.fill(Qt::transparent);
        QPainter painter(&p);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setBrush(QColor(200, 30, 30));
        painter.setPen(Qt::NoPen);
        painter.drawEllipse(1, 1, 10, 10);
        painter.setPen(QPen(Qt::white, 2));
        painter.drawLine(6, 3, 6, 7);
        painter.drawPoint(6, 9);
        return p;
    }();
    return pixmap;
}

/// A small amber triangle with "!", the type-mismatch mark of the Type cell and the row header.
QPixmap warningPixmap() {
    static const QPixmap pixmap = [] {
        QPixmap p(12, 12);
        p.fill(Qt::transparent);
        QPainter painter(&p);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setBrush(QColor(200, 135, 0));
        painter.setPen(Qt::NoPen);
        painter.drawPolygon(QPolygonF({QPointF(6, 0.5), QPointF(11.5, 11), QPointF(0.5, 11)}));
        painter.setPen(QPen(Qt::white, 2));
        painter.drawLine(6, 4, 6, 7);
        painter.drawPoint(6, 9);
        return p;
    }();
    return pixmap;
}

QVariant argumentText(const ArgumentSpec& arg, int column) {
    if (arg.isImage())
        return imageDisplay(arg, column);
    if (arg.isTensorMap())
        return tensorMapDisplay(arg, column);
    switch (column) {
    case ArgumentTableModel::NameColumn:
        return arg.name;
    case ArgumentTableModel::TypeColumn:
        return arg.isBuffer() ? arg.buffer.elementType.displayName() : arg.type.displayName();
    case ArgumentTableModel::KindColumn:
        return arg.isBuffer() ? QStringLiteral("buffer") : QStringLiteral("scalar");
    case ArgumentTableModel::ValueColumn:
        return arg.isBuffer() ? arg.buffer.count : arg.value;
    case ArgumentTableModel::InitColumn:
        return arg.isBuffer() ? formatInitSpec(arg.buffer.init) : QString();
    case ArgumentTableModel::DirectionColumn:
        return arg.isBuffer() ? directionName(arg.buffer.direction) : QString();
    case ArgumentTableModel::VerifyColumn:
        return arg.isBuffer() ? formatVerifySpec(arg.buffer.verify) : QString();
    default:
        return {};
    }
}

std::optional<ValueType> typeFromName(const QString& name, const QVector<StructType>& structs) {
    const QString trimmed = name.trimmed();
    for (const StructType& s : structs) {
        if (s.name == trimmed)
            return ValueType::ofStruct(s);
    }
    if (const auto scalar = scalarTypeFromName(trimmed))
        return ValueType::of(*scalar);
    return std::nullopt;
}

bool applyArgumentEdit(ArgumentSpec& arg, int column, const QString& text,
                       const QVector<StructType>& structs) {
    switch (column) {
    case ArgumentTableModel::NameColumn:
        arg.name = text.trimmed();
        return true;
    case ArgumentTableModel::TypeColumn: {
        const auto type = typeFromName(text, structs);
        if (!type)
            return false;
        (arg.isBuffer() ? arg.buffer.elementType : arg.type) = *type;
        return true;
    }
    case ArgumentTableModel::KindColumn: {
        const QString kind = text.trimmed().toLower();
        if (kind == QLatin1String("tensormap")) {
            // The other kinds' settings stay, for a change back.
            arg.kind = ArgumentSpec::Kind::TensorMap;
            return true;
        }
        if (arg.isTensorMap()) {
            arg.kind = kind == QLatin1String("buffer") ? ArgumentSpec::Kind::Buffer
                                                       : ArgumentSpec::Kind::Scalar;
            return kind == QLatin1String("buffer") || kind == QLatin1String("scalar");
        }
        if (kind == QLatin1String("texture") || kind == QLatin1String("surface")) {
            const bool surface = kind == QLatin1String("surface");
            if (!arg.isImage())
                arg = makeTextureArgument(arg.name, surface);
            arg.kind = surface ? ArgumentSpec::Kind::Surface : ArgumentSpec::Kind::Texture;
            arg.buffer.direction = surface ? Direction::Out : Direction::In;
            arg.buffer.verify = VerifySpec{};
            syncTextureContents(arg);
            return true;
        }
        if (arg.isImage()) {
            // The contents become the buffer (or the value type the scalar).
            arg.type = arg.buffer.elementType;
            arg.kind = kind == QLatin1String("buffer") ? ArgumentSpec::Kind::Buffer
                                                       : ArgumentSpec::Kind::Scalar;
            return kind == QLatin1String("buffer") || kind == QLatin1String("scalar");
        }
        if (kind == QLatin1String("buffer") && !arg.isBuffer()) {
            arg.kind = ArgumentSpec::Kind::Buffer;
            arg.buffer.elementType = arg.type;
        } else if (kind == QLatin1String("scalar") && arg.isBuffer()) {
            arg.kind = ArgumentSpec::Kind::Scalar;
            arg.type = arg.buffer.elementType;
        } else if (kind != QLatin1String("buffer") && kind != QLatin1String("scalar")) {
            return false;
        }
        return true;
    }
    case ArgumentTableModel::ValueColumn:
        (arg.isBuffer() ? arg.buffer.count : arg.value) = text.trimmed();
        return true;
    case ArgumentTableModel::InitColumn: {
        const auto init = parseInitSpec(text, nullptr);
        if (!(arg.isBuffer() || arg.isImage()) || !init)
            return false;
        arg.buffer.init = *init;
        return true;
    }
    case ArgumentTableModel::DirectionColumn: {
        const auto d = directionFromName(text.trimmed().toLower());
        if (!(arg.isBuffer() || arg.isImage()) || !d)
            return false;
        arg.buffer.direction = *d;
        return true;
    }
    case ArgumentTableModel::VerifyColumn: {
        const auto verify = parseVerifySpec(text, nullptr);
        if (!(arg.isBuffer() || arg.isImage()) || !verify)
            return false;
        arg.buffer.verify = *verify;
        return true;
    }
    default:
        return false;
    }
}

} // namespace kernelpad::cells
