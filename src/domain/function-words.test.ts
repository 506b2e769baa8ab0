import { describe, expect, it } from 'vitest';
import { functionWordsOf, languagesOf } from './function-words.js';

const words = (text: string) =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{M}]+/u)
    .filter(Boolean);

describe('function words of German, French, Spanish and Portuguese', () => {
  it('tells the language of a request by its function words', () => {
    expect(languagesOf(words('Bitte storniere meine Bestellung, ich brauche sie nicht mehr.'))).toEqual(['de']);
    expect(languagesOf(words("J'ai oublié mon mot de passe, peux-tu m'envoyer un lien ?"))).toEqual(['fr']);
    // Spanish and Portuguese share words; a short request may count for both.
    expect(languagesOf(words('¿Cuál es la capital de Australia?'))).toContain('es');
    expect(languagesOf(words('Anula mi pedido, por favor.'))).toContain('es');
    expect(languagesOf(words('Consulte o tempo em Faro e envie a previsão ao Pedro.'))).toEqual(['pt']);
    // Words that mark several languages count for each (a lone marker counts when no English word stands against
    // it), in the order the languages are listed.
    expect(languagesOf(words('que para por mi'))).toEqual(['fr', 'es', 'pt']);
    expect(languagesOf(words('the que para por mi'))).toEqual(['es', 'pt']);
    expect(languagesOf(words('the to of and que para'))).toEqual([]);
  });

  it('finds none in an English request, however many of its words are Spanish or French', () => {
    for (const text of [
      'Book a table at La Casa del Sol for four',
      "Bonjour! I'd like to cancel all of my upcoming flights, s'il vous plaît.",
      'Ship the order to Los Angeles and email me the tracking number',
      'cancel order',
    ])
      expect(functionWordsOf(words(text)), text).toEqual(new Set());
  });

  it('drops the function words of the language, the ambiguous ones too, and keeps what says the task', () => {
    const de = words('Die Bestellung soll storniert werden, bitte kümmere dich darum.');
    const dropped = functionWordsOf(de);
    expect(de.filter((w) => !dropped.has(w))).toEqual(['bestellung', 'storniert', 'kümmere']);
  });
});
