/**
 * Turns a title into a URL slug: lowercase ASCII words joined by a separator.
 * @param {string} title
 * @param {{ separator?: string, maxLength?: number }} [options]
 * @returns {string}
 */
export function slugify(title, options = {}) {
  const separator = options.separator ?? '-';
  const words = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  let slug = words.join(separator);
  if (options.maxLength !== undefined && slug.length > options.maxLength) {
    slug = slug.slice(0, options.maxLength);
    const cut = slug.lastIndexOf(separator);
    if (cut > 0) slug = slug.slice(0, cut);
  }
  return slug;
}

/**
 * Makes a slug unique among those already taken by appending -2, -3, ...
 * @param {string} slug
 * @param {Set<string>} taken
 * @returns {string}
 */
export function uniqueSlug(slug, taken) {
  if (!taken.has(slug)) return slug;
  let n = 2;
  while (taken.has(`${slug}-${n}`)) n += 1;
  return `${slug}-${n}`;
}
