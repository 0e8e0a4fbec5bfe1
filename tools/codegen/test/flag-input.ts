/** The codecs fixture's flag: a boolean or the integer the wire carries. */
export type FlagInput = boolean | 0 | 1;
