/**
 * Luhn's check digit of a string of digits (the check digit to append): every second digit
 * from the right doubled, its digits summed, the total brought up to a multiple of 10. NPIs
 * (over their issuer prefix) and LOINC codes use it.
 */
export function luhnCheckDigit(digits: string): number {
  let sum = 0;
  [...digits].reverse().forEach((char, i) => {
    const digit = Number(char) * (i % 2 === 0 ? 2 : 1);
    sum += digit > 9 ? digit - 9 : digit;
  });
  return (10 - (sum % 10)) % 10;
}
