/** A module option, URL or task declaration that cannot work; thrown at boot. */
export class DocketConfigurationError extends Error {
  override name = 'DocketConfigurationError';
}
