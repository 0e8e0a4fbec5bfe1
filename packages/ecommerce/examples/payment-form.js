// The script of payment-form.html, bundled by the merchant's build (any bundler) with
// `@paysys/ecommerce/card`. Only the cryptogram leaves the page; the merchant's server creates the
// payment with it (`customerData: { cardData: cryptogram }`).
import { loadCardEncryption } from "@paysys/ecommerce/card";

const form = document.querySelector("#card-form");
const outcome = document.querySelector("#outcome");
const cards = loadCardEncryption({ keyUrl: form.dataset.keyUrl });
const field = (id) => document.querySelector(`#${id}`).value;

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  outcome.textContent = "";
  try {
    // Checks the card first (Luhn, month, year, CVV); the error names the field, never its value.
    const cryptogram = await cards.encrypt({ pan: field("pan"), month: field("month"), year: field("year"), cvv: field("cvv"), cardholder: field("cardholder") });
    const response = await fetch(form.action, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ cryptogram }) });
    outcome.textContent = (await response.json()).message;
  } catch (error) {
    outcome.textContent = error.message;
  }
});
