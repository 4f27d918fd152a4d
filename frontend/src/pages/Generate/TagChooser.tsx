import type { TagCategory } from '@studio/contracts';
import { Select } from 'antd';

interface TagChooserProps {
  category: TagCategory;
  value: string | undefined;
  /** Sets the config setting named after the chooser (`category.key`). */
  onChange(key: string, value: string): void;
}

/** The spec's tag chooser: one tag from a titled list. Long lists can be searched. */
export function TagChooser({ category, value, onChange }: TagChooserProps) {
  const id = `tag-${category.key}`;
  return (
    <div className="tag-chooser" data-config-key={category.key}>
      <label htmlFor={id}>{category.title}</label>
      <Select
        id={id}
        size="large"
        value={value}
        onChange={(next: string) => onChange(category.key, next)}
        options={category.tags.map((tag) => ({ value: tag, label: tag }))}
        showSearch={category.tags.length > 12}
        // A few dozen tags at most: all in the list, so long ones can wrap (see styles.css).
        virtual={false}
        popupClassName="tag-chooser-options"
        style={{ width: '100%' }}
      />
    </div>
  );
}
