/**
 * Image fields (schema type `image`, e.g. a device type's front_image): the names the generator and
 * the runtime share. The generator gives a model with image fields the generic hook and one GET
 * route per field (`…/<id>/<field>/`, the action); a field's file is stored under its own owner type.
 */
export const IMAGE_HOOK = 'image_fields';
export const IMAGE_FILE = 'image_field_file';

/** The stored file's owner type of one image field: the model's content type and the field (`dcim.devicetype.front_image`). */
export const imageOwner = (contentType: string, field: string): string => `${contentType}.${field}`;
