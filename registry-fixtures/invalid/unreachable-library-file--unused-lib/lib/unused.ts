export const unused = 1;
