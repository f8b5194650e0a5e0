#include "core/cuda/TextureObject.h"

#include "core/cuda/CudaError.h"
#include "core/cuda/DriverApi.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace kernelpad {
namespace {

CUDA_MEMCPY3D copyParams(const ArrayDesc& desc) {
    CUDA_MEMCPY3D copy;
    std::memset(&copy, 0, sizeof(copy));
    // A 1D array (layered or not) is one row per slice; the slices are layers or faces.
    copy.WidthInBytes = size_t(desc.rowBytes());
    copy.Height = size_t(std::max<qint64>(desc.height, 1));
    copy.Depth = size_t(std::max<qint64>(desc.depth, 1));
    return copy;
}

} // namespace

qint64 ArrayDesc::sizeBytes() const {
    return rowBytes() * std::max<qint64>(height, 1) * std::max<qint64>(depth, 1);
}

CUarray TextureObject::createArray(const ArrayDesc& desc) {
    CUDA_ARRAY3D_DESCRIPTOR d;
    std::memset(&d, 0, sizeof(d));
    d.Width = size_t(desc.width);
    d.Height = size_t(desc.height);
    d.Depth = size_t(desc.depth);
    d.Format = desc.format;
    d.NumChannels = unsigned(desc.channels);
    d.Flags = desc.flags;
    CUarray array = nullptr;
    check(DriverApi::get().cuArray3DCreate(&array, &d),
          QStringLiteral("cuArray3DCreate for %1").arg(desc.label));
    return array;
}

TextureObject TextureObject::texture(const ArrayDesc& array, const SamplerDesc& sampler) {
    TextureObject t;
    t.m_desc = array;
    t.m_array = createArray(array); // t's destructor frees it if the object cannot be made
    CUDA_RESOURCE_DESC resource;
    std::memset(&resource, 0, sizeof(resource));
    resource.resType = CU_RESOURCE_TYPE_ARRAY;
    resource.res.array.hArray = t.m_array;
    CUDA_TEXTURE_DESC texture;
    std::memset(&texture, 0, sizeof(texture));
    std::copy(sampler.address.begin(), sampler.address.end(), texture.addressMode);
    texture.filterMode = sampler.filter;
    texture.flags = sampler.flags;
    std::copy(sampler.borderColor.begin(), sampler.borderColor.end(), texture.borderColor);
    CUtexObject handle = 0;
    check(DriverApi::get().cuTexObjectCreate(&handle, &resource, &texture, nullptr),
          QStringLiteral("cuTexObjectCreate for %1").arg(array.label));
    t.m_handle = handle;
    return t;
}

TextureObject TextureObject::surface(const ArrayDesc& array) {
    TextureObject t;
    t.m_surface = true;
    t.m_desc = array;
    t.m_desc.flags |= CUDA_ARRAY3D_SURFACE_LDST;
    t.m_array = createArray(t.m_desc);
    CUDA_RESOURCE_DESC resource;
    std::memset(&resource, 0, sizeof(resource));
    resource.resType = CU_RESOURCE_TYPE_ARRAY;
    resource.res.array.hArray = t.m_array;
    CUsurfObject handle = 0;
    check(DriverApi::get().cuSurfObjectCreate(&handle, &resource),
          QStringLiteral("cuSurfObjectCreate for %1").arg(array.label));
    t.m_handle = handle;
    return t;
}

TextureObject::~TextureObject() {
    reset();
}

void TextureObject::reset() noexcept {
    const DriverApi* api = DriverApi::load();
    if (!api)
        return;
    if (m_handle) {
        const CUresult r =
            m_surface ? api->cuSurfObjectDestroy(m_handle) : api->cuTexObjectDestroy(m_handle);
        if (r != CUDA_SUCCESS)
            qWarning("destroying the object of %s failed: %d", qPrintable(m_desc.label), int(r));
        m_handle = 0;
    }
    if (m_array) {
        if (const CUresult r = api->cuArrayDestroy(m_array); r != CUDA_SUCCESS)
            qWarning("cuArrayDestroy of %s failed: %d", qPrintable(m_desc.label), int(r));
        m_array = nullptr;
    }
}

TextureObject::TextureObject(TextureObject&& other) noexcept
    : m_array(std::exchange(other.m_array, nullptr))
    , m_handle(std::exchange(other.m_handle, 0))
    , m_surface(other.m_surface)
    , m_desc(std::move(other.m_desc)) {}

TextureObject& TextureObject::operator=(TextureObject&& other) noexcept {
    std::swap(m_array, other.m_array);
    std::swap(m_handle, other.m_handle);
    std::swap(m_surface, other.m_surface);
    std::swap(m_desc, other.m_desc);
    return *this;
}

void TextureObject::uploadAsync(const void* host, const Stream& stream) {
    CUDA_MEMCPY3D copy = copyParams(m_desc);
    copy.srcMemoryType = CU_MEMORYTYPE_HOST;
    copy.srcHost = host;
    copy.srcPitch = copy.WidthInBytes;
    copy.srcHeight = copy.Height;
    copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    copy.dstArray = m_array;
    check(DriverApi::get().cuMemcpy3DAsync(&copy, stream.handle()),
          QStringLiteral("copying %1 to %2").arg(formatBytes(m_desc.sizeBytes()), m_desc.label));
}

void TextureObject::downloadAsync(void* host, const Stream& stream) const {
    CUDA_MEMCPY3D copy = copyParams(m_desc);
    copy.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    copy.srcArray = m_array;
    copy.dstMemoryType = CU_MEMORYTYPE_HOST;
    copy.dstHost = host;
    copy.dstPitch = copy.WidthInBytes;
    copy.dstHeight = copy.Height;
    check(DriverApi::get().cuMemcpy3DAsync(&copy, stream.handle()),
          QStringLiteral("copying %1 back from %2")
              .arg(formatBytes(m_desc.sizeBytes()), m_desc.label));
}

} // namespace kernelpad
