import type sharp from 'sharp';

/** EXIF ImageDescription prefix of every image the engine synthesises. */
export const AI_GENERATED_MARK = 'AI-generated';
export const SOFTWARE = '@studio/inference LocalCpuEngine';
/** IPTC digital source type of media made by a trained model (C2PA manifests of our outputs). */
export const IPTC_TRAINED_ALGORITHMIC_MEDIA =
  'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia';
/** IPTC digital source type of a composite made with a trained model (e.g. a face swap). */
export const IPTC_COMPOSITE_WITH_AI =
  'http://cv.iptc.org/newscodes/digitalsourcetype/compositeWithTrainedAlgorithmicMedia';

/**
 * Marks an output as AI-generated, readable back with `sharp(buffer).metadata()`: EXIF IFD0
 * ImageDescription ("AI-generated …") and Software, and XMP with the IPTC DigitalSourceType.
 */
export function markAiGenerated(pipeline: sharp.Sharp, what: string): sharp.Sharp {
  // No parentheses: libvips reads "text (…)" in EXIF strings as its own type annotation and drops it.
  const description = `${AI_GENERATED_MARK} image: ${what}`;
  return pipeline
    .withExif({ IFD0: { ImageDescription: description, Software: SOFTWARE } })
    .withXmp(xmp(description));
}

function xmp(description: string): string {
  return [
    '<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>',
    '<x:xmpmeta xmlns:x="adobe:ns:meta/">',
    '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">',
    '<rdf:Description rdf:about=""',
    ' xmlns:dc="http://purl.org/dc/elements/1.1/"',
    ' xmlns:xmp="http://ns.adobe.com/xap/1.0/"',
    ' xmlns:Iptc4xmpExt="http://iptc.org/std/Iptc4xmpExt/2008-02-29/"',
    ` Iptc4xmpExt:DigitalSourceType="${IPTC_COMPOSITE_WITH_AI}"`,
    ` xmp:CreatorTool="${SOFTWARE}">`,
    `<dc:description><rdf:Alt><rdf:li xml:lang="x-default">${description}</rdf:li></rdf:Alt></dc:description>`,
    '</rdf:Description>',
    '</rdf:RDF>',
    '</x:xmpmeta>',
    '<?xpacket end="w"?>',
  ].join('');
}
