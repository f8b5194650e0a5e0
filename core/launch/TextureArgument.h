#pragma once
// Texture and surface arguments: an ArgumentSpec whose `texture` describes the CUDA array
// and sampler and whose `buffer` holds the array's contents (init, direction, verify) with
// the element type and count that follow from the array.

#include "core/launch/ArgumentSpec.h"

#include <QJsonObject>
#include <QString>

#include <optional>

namespace kernelpad {

/// "texture 'tex'", "surface 'out'": how messages name the argument.
[[nodiscard]] QString imageLabel(const ArgumentSpec& arg);

/// Makes the contents' element type and count follow `arg.texture` (call after changing it).
void syncTextureContents(ArgumentSpec& arg);

/// A 64 x 64 float texture (or surface) named `name`, ready to run.
[[nodiscard]] ArgumentSpec makeTextureArgument(const QString& name, bool surface);

/// Empty when the texture or surface can be made, else the problem naming the argument and
/// the field: "texture 'tex': filter: linear filtering needs floating-point texels ...".
[[nodiscard]] QString textureArgumentProblem(const ArgumentSpec& arg);

/// {"name", "kind": "texture"|"surface", "texture": {array, sampler, init, direction, verify}}
[[nodiscard]] QJsonObject textureArgumentToJson(const ArgumentSpec& arg);
/// Reads the "texture" object of an argument named `name`; the error names the field
/// ("texture.cubemap: ...").
[[nodiscard]] std::optional<ArgumentSpec>
textureArgumentFromJson(const QString& name, bool surface, const QJsonObject& json, QString* error);

} // namespace kernelpad
