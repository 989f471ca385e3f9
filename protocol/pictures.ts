/**
 * The pictures the service answers (thumbnails, the output's previews): their formats and the
 * range of a preview's size, declared once. The schemas (`protocol/methods.ts`,
 * `protocol/output.ts`, the operations' inputs), the player, the web remote (served as
 * `/remote/pictures.js`) and the Companion module (`catalog.json`) take them from here.
 * @module
 */

/** The formats of a picture: JPEG (the default of thumbnails and previews) or PNG. */
export const PICTURE_FORMATS = ["jpeg", "png"] as const;
/** A picture's format. */
export type PictureFormat = (typeof PICTURE_FORMATS)[number];

/** The size of a thumbnail or a preview (a preview's longer side), in pixels. */
export const PICTURE_SIZE = { min: 16, max: 512 } as const;
