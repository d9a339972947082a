/** `10.a.b.c` for the i-th address of the bench's dataset (from 10.0.0.1: the /8's network ID may not be assigned), with the /8 every address carries. */
export const addressOf = (i: number) => {
  const n = i + 1;
  return `10.${Math.floor(n / 65536) % 256}.${Math.floor(n / 256) % 256}.${n % 256}/8`;
};
